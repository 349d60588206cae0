import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { CodeParams, ListQuery, NoContent } from '../../kernel/http/schemas.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { Charge, ChargeArticles, ChargeInput, ChargePage, ChargeUpdate } from './charge.schemas.ts'
import type { ChargeService } from './charge.service.ts'

/** Charges (catalog.charges.*). Pricing versions have their own routes in the pricing module. */
export function registerChargeRoutes(server: FastifyInstance, charges: ChargeService, actorOf: ActorOf): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['ChargeTemplate']
  const view = { policy: { role: 'catalog.charges.view' } }
  const manage = { policy: { role: 'catalog.charges.manage' } }

  app.post(
    '/api/v1/charges',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create a charge (DRAFT) and its accounting article',
        description: 'RECURRING needs billingCalendar; unknown references are a 400 naming the field.',
        body: ChargeInput,
        response: { 201: Charge },
      },
    },
    async (request, reply) => reply.status(201).send(await charges.create(request.body, actorOf(request).username)),
  )
  app.get(
    '/api/v1/charges',
    {
      config: view,
      schema: { tags, summary: 'List charges, paginated', querystring: ListQuery, response: { 200: ChargePage } },
    },
    async (request) => charges.list(request.query),
  )
  app.get(
    '/api/v1/charges/:code',
    { config: view, schema: { tags, summary: 'Get a charge', params: CodeParams, response: { 200: Charge } } },
    async (request) => charges.get(request.params.code),
  )
  app.put(
    '/api/v1/charges/:code',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update a charge (partial; null clears an optional field; the type cannot change)',
        params: CodeParams,
        body: ChargeUpdate,
        response: { 200: Charge },
      },
    },
    async (request) => charges.update(request.params.code, request.body, actorOf(request).username),
  )
  app.delete(
    '/api/v1/charges/:code',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete a charge no product or service uses (409 otherwise)',
        params: CodeParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await charges.delete(request.params.code)
      return reply.status(204).send(null)
    },
  )
  app.get(
    '/api/v1/charges/:code/articles',
    {
      config: view,
      schema: {
        tags,
        summary: 'The accounting articles of a charge (the one created with it)',
        params: CodeParams,
        response: { 200: ChargeArticles },
      },
    },
    async (request) => charges.articles(request.params.code),
  )
}
