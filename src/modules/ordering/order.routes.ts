import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../../kernel/errors.ts'
import { hasRole, principalOf } from '../../kernel/http/principal.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { OrderInput } from './order.model.ts'
import { codeParams, createQuery, openObject, orderBody, previewResponse } from './order.schemas.ts'
import type { Caller, OrderService } from './order.service.ts'

const OVERRIDE_ROLE = 'catalog.pricePlans.manage'

/** Orders (ordering.orders.*): create, validate, read, and preview (view role: it creates nothing). */
export function registerOrderRoutes(app: FastifyInstance, orders: OrderService, actorOf: ActorOf): void {
  const tags = ['Order']
  const view = { policy: { role: 'ordering.orders.view' } }
  const manage = { policy: { role: 'ordering.orders.manage' } }

  const caller = (request: FastifyRequest): Caller => ({
    username: actorOf(request).username,
    sellerCodes: principalOf(request).sellerCodes,
  })
  /** Prices given by the order (chargeOverrides) need the price plan role on top of the order role. */
  const order = (request: FastifyRequest): OrderInput => {
    const input = request.body as OrderInput
    const overrides = input.orderOffers.some((o) =>
      (o.orderProducts ?? []).some((p) => (p.chargeOverrides ?? []).length > 0),
    )
    if (overrides && !hasRole(principalOf(request), OVERRIDE_ROLE)) {
      throw new AppError('FORBIDDEN', `chargeOverrides need the role ${OVERRIDE_ROLE}`)
    }
    return input
  }

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
        response: { 201: openObject },
      },
    },
    async (request, reply) => {
      const { autoValidate } = request.query as { autoValidate: boolean }
      return reply.status(201).send(await orders.create(order(request), autoValidate, caller(request)))
    },
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
    async (request) => orders.preview(order(request), caller(request)),
  )
  app.post(
    '/api/v1/orders/:code/validation',
    {
      config: manage,
      schema: {
        operationId: 'validateOrder',
        tags,
        summary: 'Validate a draft order: bills its full stored discount selection',
        params: codeParams,
        response: { 200: openObject },
      },
    },
    async (request) => orders.validate((request.params as { code: string }).code, caller(request)),
  )
  app.get(
    '/api/v1/orders/:code',
    {
      config: view,
      schema: { tags, summary: 'Get an order', params: codeParams, response: { 200: openObject } },
    },
    async (request) => orders.get((request.params as { code: string }).code, caller(request)),
  )
}
