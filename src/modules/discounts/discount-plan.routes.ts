import { Type, type Static, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { DecimalJson } from '../../kernel/decimal-json.ts'
import { decimalOut } from '../../kernel/decimal-json.ts'
import { CodeParams, ListQuery, NoContent } from '../../kernel/http/schemas.ts'
import type { Resource } from '../../kernel/resources/resource.model.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { bodySchema, resourceSchemas } from '../../kernel/resources/resource.schemas.ts'
import { decimalSchema } from '../pricing/index.ts'
import type { DiscountPlanService } from './discount-plan.service.ts'

const Code = Type.String({ minLength: 1, maxLength: 255 })
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] })
const ITEM_TYPES = ['PERCENTAGE', 'FIXED'] as const
const ItemType = Type.Unsafe<(typeof ITEM_TYPES)[number]>({ type: 'string', enum: [...ITEM_TYPES] })
const ItemParams = Type.Object({ code: Code, itemCode: Code })

const itemFields = {
  description: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 2000 })),
  discountValue: Type.Unsafe<number | string>({
    ...decimalSchema,
    description: 'a percentage (0 < v ≤ 100) for PERCENTAGE, an amount (> 0) for FIXED',
  }),
  accountingArticle: Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      minLength: 1,
      maxLength: 255,
      description: 'code of an accounting article',
    }),
  ),
  sequence: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
}
const DiscountPlanItemInput = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 255, pattern: CODE_PATTERN }),
    discountPlanItemType: ItemType,
    ...itemFields,
  },
  { $id: 'DiscountPlanItemInput', title: 'DiscountPlanItemInput', additionalProperties: false },
)
const DiscountPlanItemUpdate = Type.Object(
  {
    code: Type.Optional(Type.String({ ...Code, description: 'the item code of the path, when sent' })),
    discountPlanItemType: Type.Optional(ItemType),
    ...itemFields,
    discountValue: Type.Optional(itemFields.discountValue),
  },
  { $id: 'DiscountPlanItemUpdate', title: 'DiscountPlanItemUpdate', additionalProperties: false },
)
const DiscountPlanItem = Type.Object(
  {
    id: Type.Integer(),
    code: Type.String(),
    description: NullableString,
    discountPlanCode: Type.String(),
    discountPlanItemType: Type.Unsafe<string>({ type: 'string', enum: [...ITEM_TYPES] }),
    discountValue: Type.Unsafe<DecimalJson>(decimalOut),
    accountingArticle: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description: 'code of the accounting article of the discount lines',
    }),
    sequence: Type.Integer(),
    auditable: Type.Object(
      {
        created: Type.String({ format: 'date-time' }),
        updated: NullableString,
        creator: NullableString,
        updater: NullableString,
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'DiscountPlanItem', title: 'DiscountPlanItem', additionalProperties: false },
)
const DiscountPlanListQuery = Type.Object(
  {
    ...ListQuery.properties,
    usable: Type.Optional(
      Type.Boolean({
        description:
          'true: only the plans an order may apply now (ACTIVE or IN_USE), the ones an offer or an order picks from; false: only the others (DRAFT, EXPIRED)',
      }),
    ),
  },
  { additionalProperties: false },
)
const DiscountPlanItems = Type.Object(
  { discountPlanCode: Type.String(), items: Type.Array(DiscountPlanItem, { description: 'by sequence' }) },
  { $id: 'DiscountPlanItems', title: 'DiscountPlanItems', additionalProperties: false },
)

/** Discount plans and their items (catalog.discounts.*). */
export function registerDiscountPlanRoutes(
  server: FastifyInstance,
  plans: DiscountPlanService,
  resource: Resource,
  actorOf: ActorOf,
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['DiscountPlan']
  const view = { policy: { role: 'catalog.discounts.view' } }
  const manage = { policy: { role: 'catalog.discounts.manage' } }
  const base = '/api/v1/discountPlans'
  const actor = (request: unknown) => actorOf(request).username
  const schemas = resourceSchemas(resource)
  const record = schemas.record
  const { $id: _id, title: _title, ...inputShape } = bodySchema(resource, false)
  // The body of a create-or-update by code: the create body, with the code optional (the path gives it).
  const upsertBody = Type.Unsafe<Static<typeof schemas.input>>({
    ...inputShape,
    required: (inputShape.required as string[] | undefined)?.filter((f) => f !== 'code'),
  })

  app.post(
    base,
    {
      config: manage,
      schema: { tags, summary: 'Create a discount plan (DRAFT)', body: schemas.input, response: { 201: record } },
    },
    async (request, reply) => reply.status(201).send(await plans.create(request.body, actor(request))),
  )
  app.get(
    base,
    {
      config: view,
      schema: {
        tags,
        summary: 'List discount plans, paginated (usable=true: only those an order may apply now)',
        querystring: DiscountPlanListQuery,
        response: { 200: schemas.page },
      },
    },
    async (request) => plans.list(request.query),
  )
  app.get(
    `${base}/:code`,
    {
      config: view,
      schema: { tags, summary: 'Get a discount plan', params: CodeParams, response: { 200: record } },
    },
    async (request) => plans.get(request.params.code),
  )
  app.post(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        operationId: 'putDiscountPlan',
        tags,
        summary: 'Create (201) or update (200) the discount plan of this code',
        params: CodeParams,
        body: upsertBody,
        response: { 200: record, 201: record },
      },
    },
    async (request, reply) => {
      const result = await plans.upsert(request.params.code, request.body, actor(request))
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
        params: CodeParams,
        body: schemas.update,
        response: { 200: record },
      },
    },
    async (request) => plans.update(request.params.code, request.body, actor(request)),
  )
  app.delete(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete a discount plan no order, product or offer uses',
        params: CodeParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await plans.delete(request.params.code)
      return reply.status(204).send(null)
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
        params: CodeParams,
        response: { 200: record },
      },
    },
    async (request) => plans.activate(request.params.code, actor(request)),
  )

  const itemTags = ['DiscountPlanItem']
  app.get(
    `${base}/:code/items`,
    {
      config: view,
      schema: {
        tags: itemTags,
        summary: 'The items of a discount plan',
        params: CodeParams,
        response: { 200: DiscountPlanItems },
      },
    },
    async (request) => plans.listItems(request.params.code),
  )
  app.post(
    `${base}/:code/items`,
    {
      config: manage,
      schema: {
        operationId: 'createDiscountPlanItem',
        tags: itemTags,
        summary: 'Add an item to a DRAFT or ACTIVE plan',
        params: CodeParams,
        body: DiscountPlanItemInput,
        response: { 201: DiscountPlanItem },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await plans.createItem(request.params.code, request.body, actor(request))),
  )
  app.get(
    `${base}/:code/items/:itemCode`,
    {
      config: view,
      schema: {
        tags: itemTags,
        summary: 'Get a discount plan item',
        params: ItemParams,
        response: { 200: DiscountPlanItem },
      },
    },
    async (request) => plans.getItem(request.params.code, request.params.itemCode),
  )
  app.put(
    `${base}/:code/items/:itemCode`,
    {
      config: manage,
      schema: {
        tags: itemTags,
        summary: 'Update a discount plan item (partial)',
        params: ItemParams,
        body: DiscountPlanItemUpdate,
        response: { 200: DiscountPlanItem },
      },
    },
    async (request) => plans.updateItem(request.params.code, request.params.itemCode, request.body, actor(request)),
  )
  app.delete(
    `${base}/:code/items/:itemCode`,
    {
      config: manage,
      schema: {
        tags: itemTags,
        summary: 'Delete a discount plan item',
        params: ItemParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await plans.deleteItem(request.params.code, request.params.itemCode)
      return reply.status(204).send(null)
    },
  )
}
