import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Resource } from '../../kernel/resources/resource.model.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { bodySchema, resourceSchemas } from '../../kernel/resources/resource.schemas.ts'
import { NoContent } from '../../kernel/http/schemas.ts'
import type { ListQuery } from '../../kernel/resources/resource.service.ts'
import { decimalSchema } from '../pricing/index.ts'
import type { DiscountPlanService, ItemInput } from './discount-plan.service.ts'

const code = { type: 'string', minLength: 1, maxLength: 255 }
const params = (...names: string[]) => ({
  type: 'object',
  required: names,
  properties: Object.fromEntries(names.map((n) => [n, code])),
})
const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1 },
    sortBy: { type: 'string', maxLength: 100 },
    sortOrder: { type: 'string', maxLength: 20 },
  },
}
const itemFields = {
  description: { type: ['string', 'null'], maxLength: 2000 },
  discountPlanItemType: { type: 'string', enum: ['PERCENTAGE', 'FIXED'] },
  discountValue: {
    ...decimalSchema,
    description: 'a percentage (0 < v ≤ 100) for PERCENTAGE, an amount (> 0) for FIXED',
  },
  accountingArticle: {
    type: ['string', 'null'],
    minLength: 1,
    maxLength: 255,
    description: 'code of an accounting article',
  },
  sequence: { type: 'integer', minimum: 0, maximum: 100000 },
}
const itemCreateBody = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'discountPlanItemType', 'discountValue'],
  properties: { code: { ...code, pattern: '^[A-Za-z0-9][A-Za-z0-9_.\\-]*$' }, ...itemFields },
}
const itemUpdateBody = { type: 'object', additionalProperties: false, properties: { code, ...itemFields } }
const openObject = { type: 'object', additionalProperties: true }

/** Discount plans and their items (catalog.discounts.*). */
export function registerDiscountPlanRoutes(
  app: FastifyInstance,
  plans: DiscountPlanService,
  resource: Resource,
  actorOf: ActorOf,
): void {
  const tags = ['DiscountPlan']
  const view = { policy: { role: 'catalog.discounts.view' } }
  const manage = { policy: { role: 'catalog.discounts.manage' } }
  const base = '/api/v1/discountPlans'
  const p = (request: FastifyRequest) => request.params as { code: string; itemCode: string }
  const actor = (request: FastifyRequest) => actorOf(request).username
  const schemas = resourceSchemas(resource)
  const record = schemas.record
  const { $id: _id, title: _title, ...inputShape } = bodySchema(resource, false)
  const upsertBody = {
    ...inputShape,
    required: (inputShape.required as string[] | undefined)?.filter((f) => f !== 'code'),
  }

  app.post(
    base,
    {
      config: manage,
      schema: { tags, summary: 'Create a discount plan (DRAFT)', body: schemas.input, response: { 201: record } },
    },
    async (request, reply) =>
      reply.status(201).send(await plans.create(request.body as Record<string, unknown>, actor(request))),
  )
  app.get(
    base,
    {
      config: view,
      schema: {
        tags,
        summary: 'List discount plans, paginated',
        querystring: listQuery,
        response: { 200: schemas.page },
      },
    },
    async (request) => plans.list(request.query as ListQuery),
  )
  app.get(
    `${base}/:code`,
    {
      config: view,
      schema: { tags, summary: 'Get a discount plan', params: params('code'), response: { 200: record } },
    },
    async (request) => plans.get(p(request).code),
  )
  app.post(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        operationId: 'putDiscountPlan',
        tags,
        summary: 'Create (201) or update (200) the discount plan of this code',
        params: params('code'),
        body: upsertBody,
        response: { 200: record, 201: record },
      },
    },
    async (request, reply) => {
      const result = await plans.upsert(p(request).code, request.body as Record<string, unknown>, actor(request))
      return reply.status(result.created ? 201 : 200).send(result.plan)
    },
  )
  app.put(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update a discount plan (partial)',
        params: params('code'),
        body: schemas.update,
        response: { 200: record },
      },
    },
    async (request) => plans.update(p(request).code, request.body as Record<string, unknown>, actor(request)),
  )
  app.delete(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete a discount plan no order, product or offer uses',
        params: params('code'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await plans.delete(p(request).code)
      return reply.status(204).send()
    },
  )
  app.put(
    `${base}/:code/activate`,
    {
      config: manage,
      schema: {
        operationId: 'activateDiscountPlan',
        tags,
        summary: 'Activate a DRAFT discount plan (409 while it has no item)',
        params: params('code'),
        response: { 200: record },
      },
    },
    async (request) => plans.activate(p(request).code, actor(request)),
  )

  const itemTags = ['DiscountPlanItem']
  app.get(
    `${base}/:code/items`,
    {
      config: view,
      schema: {
        tags: itemTags,
        summary: 'The items of a discount plan',
        params: params('code'),
        response: { 200: openObject },
      },
    },
    async (request) => plans.listItems(p(request).code),
  )
  app.post(
    `${base}/:code/items`,
    {
      config: manage,
      schema: {
        operationId: 'createDiscountPlanItem',
        tags: itemTags,
        summary: 'Add an item to a DRAFT or ACTIVE plan',
        params: params('code'),
        body: itemCreateBody,
        response: { 201: openObject },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await plans.createItem(
            p(request).code,
            request.body as Parameters<DiscountPlanService['createItem']>[1],
            actor(request),
          ),
        ),
  )
  app.get(
    `${base}/:code/items/:itemCode`,
    {
      config: view,
      schema: {
        tags: itemTags,
        summary: 'Get a discount plan item',
        params: params('code', 'itemCode'),
        response: { 200: openObject },
      },
    },
    async (request) => plans.getItem(p(request).code, p(request).itemCode),
  )
  app.put(
    `${base}/:code/items/:itemCode`,
    {
      config: manage,
      schema: {
        tags: itemTags,
        summary: 'Update a discount plan item (partial)',
        params: params('code', 'itemCode'),
        body: itemUpdateBody,
        response: { 200: openObject },
      },
    },
    async (request) =>
      plans.updateItem(p(request).code, p(request).itemCode, request.body as ItemInput, actor(request)),
  )
  app.delete(
    `${base}/:code/items/:itemCode`,
    {
      config: manage,
      schema: {
        tags: itemTags,
        summary: 'Delete a discount plan item',
        params: params('code', 'itemCode'),
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await plans.deleteItem(p(request).code, p(request).itemCode)
      return reply.status(204).send()
    },
  )
}
