import type { FastifyInstance } from 'fastify'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { ListQuery } from '../../kernel/resources/resource.service.ts'
import { listOf, listQuery, openObject, params } from './catalog.schemas.ts'
import { chargeCreateBody, chargeUpdateBody } from './charge.schemas.ts'
import type { ChargeInput, ChargeService } from './charge.service.ts'

/** Charges (catalog.charges.*). Pricing versions have their own routes in the pricing module. */
export function registerChargeRoutes(app: FastifyInstance, charges: ChargeService, actorOf: ActorOf): void {
  const tags = ['ChargeTemplate']
  const view = { policy: { role: 'catalog.charges.view' } }
  const manage = { policy: { role: 'catalog.charges.manage' } }
  const codeOf = (request: { params: unknown }) => (request.params as { code: string }).code

  app.post(
    '/api/v1/charges',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create a charge (DRAFT) and its accounting article',
        description: 'RECURRING needs billingCalendar; unknown references are a 400 naming the field.',
        body: chargeCreateBody,
        response: { 201: openObject },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await charges.create(request.body as ChargeInput & { code: string; type: string }, actorOf(request).username),
        ),
  )
  app.get(
    '/api/v1/charges',
    {
      config: view,
      schema: {
        tags,
        summary: 'List charges, paginated',
        querystring: listQuery,
        response: { 200: listOf(openObject) },
      },
    },
    async (request) => charges.list(request.query as ListQuery),
  )
  app.get(
    '/api/v1/charges/:code',
    { config: view, schema: { tags, summary: 'Get a charge', params: params('code'), response: { 200: openObject } } },
    async (request) => charges.get(codeOf(request)),
  )
  app.put(
    '/api/v1/charges/:code',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update a charge (partial; null clears an optional field; the type cannot change)',
        params: params('code'),
        body: chargeUpdateBody,
        response: { 200: openObject },
      },
    },
    async (request) => charges.update(codeOf(request), request.body as ChargeInput, actorOf(request).username),
  )
  app.delete(
    '/api/v1/charges/:code',
    {
      config: manage,
      schema: { tags, summary: 'Delete a charge no product or service uses (409 otherwise)', params: params('code') },
    },
    async (request, reply) => {
      await charges.delete(codeOf(request))
      return reply.status(204).send()
    },
  )
  app.get(
    '/api/v1/charges/:code/articles',
    {
      config: view,
      schema: {
        tags,
        summary: 'The accounting articles of a charge (the one created with it)',
        params: params('code'),
        response: { 200: { type: 'array', items: openObject } },
      },
    },
    async (request) => charges.articles(codeOf(request)),
  )
}
