import type { Caller } from '../../kernel/caller.ts'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { principalOf } from '../../kernel/http/principal.ts'
import { CodeParams } from '../../kernel/http/schemas.ts'
import { createQuery, Order, orderBody } from './order.schemas.ts'
import { previewResponse } from './order-preview.schemas.ts'
import type { OrderService } from './order.service.ts'

/** Orders (ordering.orders.*): create, validate, read, and preview (view role: it creates nothing). */
export function registerOrderRoutes(server: FastifyInstance, orders: OrderService): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['Order']
  const view = { policy: { role: 'ordering.orders.view' } }
  const manage = { policy: { role: 'ordering.orders.manage' } }

  // The caller's roles go along for the rules asking more than the route's role (chargeOverrides: order.service.ts).
  const caller = (request: FastifyRequest): Caller => principalOf(request)

  app.post(
    '/api/v1/orders',
    {
      config: manage,
      schema: {
        operationId: 'placeOrder',
        tags,
        summary: 'Create an order: a draft keeping its discount selection, or validated at once (autoValidate)',
        description:
          'Rated as its preview. With autoValidate the order is VALIDATED, its subscriptions ACTIVE and its one-shot ' +
          'subscription charges billed; otherwise it is a DRAFT (subscriptions CREATED) until validation.',
        querystring: createQuery,
        body: orderBody,
        response: { 201: Order },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await orders.create(request.body, request.query.autoValidate ?? false, caller(request))),
  )
  app.post(
    '/api/v1/orders/preview',
    {
      config: view,
      schema: {
        tags,
        summary: 'Preview an order: the rated lines and totals a creation would bill; creates nothing',
        body: orderBody,
        response: { 200: previewResponse },
      },
    },
    async (request) => orders.preview(request.body, caller(request)),
  )
  app.post(
    '/api/v1/orders/:code/validation',
    {
      config: manage,
      schema: {
        operationId: 'validateOrder',
        tags,
        summary: 'Validate a draft order: bills its full stored discount selection',
        params: CodeParams,
        response: { 200: Order },
      },
    },
    async (request) => orders.validate(request.params.code, caller(request)),
  )
  app.get(
    '/api/v1/orders/:code',
    {
      config: view,
      schema: { tags, summary: 'Get an order', params: CodeParams, response: { 200: Order } },
    },
    async (request) => orders.get(request.params.code, caller(request)),
  )
}
