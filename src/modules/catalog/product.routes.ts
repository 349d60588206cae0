import { Type, type Static, type TSchema, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { CodeParams, NoContent } from '../../kernel/http/schemas.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { CatalogAuditable, Code, EmptyBody, NullableText, Version } from './catalog.schemas.ts'
import type { ProductService } from './product.service.ts'

const Day = (description: string) =>
  Type.Unsafe<string | null>({
    anyOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }, { type: 'null' }],
    description,
  })
const versionFields = {
  shortDescription: Type.Optional(NullableText(2000)),
  validFrom: Type.Optional(
    Day('start (yyyy-MM-dd; a date-time counts as its day in the tenant time zone), required to publish'),
  ),
  validTo: Type.Optional(Day('exclusive end (yyyy-MM-dd; a date-time counts as its day in the tenant time zone)')),
}
const ProductVersionInput = Type.Object(versionFields, {
  $id: 'ProductVersionInput',
  title: 'ProductVersionInput',
  additionalProperties: false,
})
/** A new version: the same fields, or no body at all. */
const ProductVersionCreate = Type.Unsafe<Static<typeof ProductVersionInput> | null>({
  ...Type.Object(versionFields, { additionalProperties: false }),
  type: ['object', 'null'],
})
const StatusQuery = Type.Object(
  { status: Type.Unsafe<'PUBLISHED'>({ type: 'string', enum: ['PUBLISHED'] }) },
  { additionalProperties: false },
)
const VersionParams = Type.Object({ code: Code, version: Version })
const PlanParams = Type.Object({ code: Code, dpCode: Code })

const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] })
const ProductVersion = Type.Object(
  {
    code: Type.String({ description: 'the product’s code' }),
    productCode: Type.String(),
    version: Type.Integer(),
    status: Type.Unsafe<string>({ type: 'string', enum: ['DRAFT', 'PUBLISHED'] }),
    shortDescription: NullableString,
    validFrom: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date' }),
    validTo: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date',
      description: 'exclusive end; null while open-ended',
    }),
    publishedAt: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' }),
    attributes: Type.Array(Type.String(), { description: 'codes of the linked attributes' }),
    charges: Type.Array(Type.String(), { description: 'codes of the linked charges' }),
    auditable: CatalogAuditable,
  },
  { $id: 'ProductVersion', title: 'ProductVersion', additionalProperties: false },
)
const ProductVersionList = Type.Object(
  { productCode: Type.String(), versions: Type.Array(ProductVersion) },
  { $id: 'ProductVersionList', title: 'ProductVersionList', additionalProperties: false },
)
const OrderableVersion = Type.Object(
  {
    productCode: Type.String(),
    day: Type.String({ format: 'date', description: 'the subscription day asked, else the tenant’s today' }),
    version: Type.Union([ProductVersion, Type.Null()], {
      description: 'the PUBLISHED version valid that day, which an order naming no version takes; null when none is',
    }),
  },
  { $id: 'OrderableProductVersion', title: 'OrderableProductVersion', additionalProperties: false },
)
const DayQuery = Type.Object(
  { day: Type.Optional(Type.String({ maxLength: 40, description: 'a subscription day (yyyy-MM-dd); default today' })) },
  { additionalProperties: false },
)
const ProductDiscountPlans = Type.Object(
  {
    productCode: Type.String(),
    discountPlans: Type.Array(Type.String(), { description: 'codes of the linked discount plans' }),
  },
  { $id: 'ProductDiscountPlans', title: 'ProductDiscountPlans', additionalProperties: false },
)

/** Product versions and their links (catalog.products.*); products themselves are a plain v1 resource. */
export function registerProductRoutes(server: FastifyInstance, products: ProductService, actorOf: ActorOf): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['ProductVersion']
  const view = { policy: { role: 'catalog.products.view' } }
  const manage = { policy: { role: 'catalog.products.manage' } }
  const actor = (request: unknown) => actorOf(request).username
  const base = '/api/v1/products/:code/versions'

  app.get(
    base,
    {
      config: view,
      schema: {
        tags,
        summary: 'The versions of a product',
        params: CodeParams,
        response: { 200: ProductVersionList },
      },
    },
    async (request) => products.listVersions(request.params.code),
  )
  app.get(
    '/api/v1/products/:code/orderableVersion',
    {
      config: view,
      schema: {
        operationId: 'getOrderableProductVersion',
        tags,
        summary:
          "The version an order takes when it names none: the PUBLISHED version valid on the subscription day (default the tenant's today), with its attributes; version null when none is",
        params: CodeParams,
        querystring: DayQuery,
        response: { 200: OrderableVersion },
      },
    },
    async (request) => products.orderableVersion(request.params.code, request.query.day),
  )
  app.post(
    base,
    {
      config: manage,
      schema: {
        operationId: 'createProductVersion',
        tags,
        summary: 'Create a DRAFT version with the next version number',
        params: CodeParams,
        body: ProductVersionCreate,
        response: { 201: ProductVersion },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await products.createVersion(request.params.code, request.body ?? {}, actor(request))),
  )
  app.get(
    `${base}/:version`,
    {
      config: view,
      schema: {
        tags,
        summary: 'Get a product version',
        params: VersionParams,
        response: { 200: ProductVersion },
      },
    },
    async (request) => products.getVersion(request.params.code, request.params.version),
  )
  app.put(
    `${base}/:version`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update a DRAFT version (partial): short description and validity',
        params: VersionParams,
        body: ProductVersionInput,
        response: { 200: ProductVersion },
      },
    },
    async (request) =>
      products.updateVersion(request.params.code, request.params.version, request.body, actor(request)),
  )
  app.delete(
    `${base}/:version`,
    {
      config: manage,
      schema: { tags, summary: 'Delete a DRAFT version', params: VersionParams, response: { 204: NoContent } },
    },
    async (request, reply) => {
      await products.deleteVersion(request.params.code, request.params.version)
      return reply.status(204).send(null)
    },
  )
  app.put(
    `${base}/:version/status`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Publish a DRAFT version (status=PUBLISHED)',
        description:
          'Closes the open-ended predecessor at this version’s start; 409 when the version has no start date or starts ' +
          'at or before the latest published version.',
        params: VersionParams,
        querystring: StatusQuery,
        response: { 200: ProductVersion },
      },
    },
    async (request) => products.publish(request.params.code, request.params.version, actor(request)),
  )
  /** The options of a link (`add`) or unlink (`remove`) route of a DRAFT version's attributes or charges. */
  const linkRoute = <P extends TSchema>(verb: 'add' | 'remove', noun: 'Attribute' | 'Charge', params: P) => ({
    config: manage,
    schema: {
      operationId: `${verb}ProductVersion${noun}`,
      tags,
      summary: `${verb === 'add' ? 'Link' : 'Unlink'} ${noun === 'Attribute' ? 'an attribute' : 'a charge'} ${verb === 'add' ? 'to' : 'from'} a DRAFT version`,
      params,
      ...(verb === 'add' ? { body: EmptyBody } : {}),
      response: { 200: ProductVersion },
    },
  })
  const AttributeLink = Type.Object({ code: Code, version: Version, attributeCode: Code })
  const ChargeLink = Type.Object({ code: Code, version: Version, chargeCode: Code })
  const attributes = `${base}/:version/attributes/:attributeCode`
  const charges = `${base}/:version/charges/:chargeCode`
  app.post(attributes, linkRoute('add', 'Attribute', AttributeLink), async ({ params }) =>
    products.linkAttribute(params.code, params.version, params.attributeCode),
  )
  app.delete(attributes, linkRoute('remove', 'Attribute', AttributeLink), async ({ params }) =>
    products.unlinkAttribute(params.code, params.version, params.attributeCode),
  )
  app.post(charges, linkRoute('add', 'Charge', ChargeLink), async ({ params }) =>
    products.linkCharge(params.code, params.version, params.chargeCode),
  )
  app.delete(charges, linkRoute('remove', 'Charge', ChargeLink), async ({ params }) =>
    products.unlinkCharge(params.code, params.version, params.chargeCode),
  )

  const plans = '/api/v1/products/:code/discountPlans'
  const planTags = ['Product']
  app.get(
    plans,
    {
      config: view,
      schema: {
        tags: planTags,
        summary: 'The discount plans linked to a product',
        params: CodeParams,
        response: { 200: ProductDiscountPlans },
      },
    },
    async (request) => products.discountPlans(request.params.code),
  )
  app.post(
    `${plans}/:dpCode`,
    {
      config: manage,
      schema: {
        operationId: 'addProductDiscountPlan',
        tags: planTags,
        summary: 'Link a discount plan to a product',
        params: PlanParams,
        body: EmptyBody,
        response: { 200: ProductDiscountPlans },
      },
    },
    async (request) => products.linkDiscountPlan(request.params.code, request.params.dpCode),
  )
  app.delete(
    `${plans}/:dpCode`,
    {
      config: manage,
      schema: {
        operationId: 'removeProductDiscountPlan',
        tags: planTags,
        summary: 'Unlink a discount plan from a product',
        params: PlanParams,
        response: { 200: ProductDiscountPlans },
      },
    },
    async (request) => products.unlinkDiscountPlan(request.params.code, request.params.dpCode),
  )
}
