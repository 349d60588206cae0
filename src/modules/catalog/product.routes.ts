import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { emptyBody, openObject, params } from './catalog.schemas.ts'
import type { ProductService, ProductVersionInput } from './product.service.ts'

const versionFields = {
  shortDescription: { type: ['string', 'null'], maxLength: 2000 },
  validFrom: {
    anyOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }, { type: 'null' }],
    description: 'start (yyyy-MM-dd; a date-time counts as its day in the tenant time zone), required to publish',
  },
  validTo: {
    anyOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }, { type: 'null' }],
    description: 'exclusive end (yyyy-MM-dd; a date-time counts as its day in the tenant time zone)',
  },
}
const versionBody = { type: 'object', additionalProperties: false, properties: versionFields }
const statusQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { type: 'string', enum: ['PUBLISHED'] } },
}

type VersionParams = { code: string; version: number }
type LinkParams = VersionParams & { attributeCode?: string; chargeCode?: string }

/** Product versions and their links (catalog.products.*); products themselves are a plain v1 resource. */
export function registerProductRoutes(app: FastifyInstance, products: ProductService, actorOf: ActorOf): void {
  const tags = ['ProductVersion']
  const view = { policy: { role: 'catalog.products.view' } }
  const manage = { policy: { role: 'catalog.products.manage' } }
  const p = (request: FastifyRequest) => request.params as LinkParams
  const actor = (request: FastifyRequest) => actorOf(request).username
  const base = '/api/v1/products/:code/versions'

  app.get(
    base,
    {
      config: view,
      schema: { tags, summary: 'The versions of a product', params: params('code'), response: { 200: openObject } },
    },
    async (request) => products.listVersions(p(request).code),
  )
  app.post(
    base,
    {
      config: manage,
      schema: {
        operationId: 'createProductVersion',
        tags,
        summary: 'Create a DRAFT version with the next version number',
        params: params('code'),
        body: { ...versionBody, type: ['object', 'null'] },
        response: { 201: openObject },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await products.createVersion(p(request).code, (request.body ?? {}) as ProductVersionInput, actor(request)),
        ),
  )
  app.get(
    `${base}/:version`,
    {
      config: view,
      schema: {
        tags,
        summary: 'Get a product version',
        params: params('code', 'version'),
        response: { 200: openObject },
      },
    },
    async (request) => products.getVersion(p(request).code, p(request).version),
  )
  app.put(
    `${base}/:version`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update a DRAFT version (partial): short description and validity',
        params: params('code', 'version'),
        body: versionBody,
        response: { 200: openObject },
      },
    },
    async (request) =>
      products.updateVersion(p(request).code, p(request).version, request.body as ProductVersionInput, actor(request)),
  )
  app.delete(
    `${base}/:version`,
    { config: manage, schema: { tags, summary: 'Delete a DRAFT version', params: params('code', 'version') } },
    async (request, reply) => {
      await products.deleteVersion(p(request).code, p(request).version)
      return reply.status(204).send()
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
        params: params('code', 'version'),
        querystring: statusQuery,
        response: { 200: openObject },
      },
    },
    async (request) => products.publish(p(request).code, p(request).version, actor(request)),
  )
  for (const [segment, name, noun, link, unlink] of [
    ['attributes', 'attributeCode', 'Attribute', products.linkAttribute, products.unlinkAttribute],
    ['charges', 'chargeCode', 'Charge', products.linkCharge, products.unlinkCharge],
  ] as const) {
    const url = `${base}/:version/${segment}/:${name}`
    const linkParams = params('code', 'version', name)
    app.post(
      url,
      {
        config: manage,
        schema: {
          operationId: `addProductVersion${noun}`,
          tags,
          summary: `Link one of the ${segment} to a DRAFT version`,
          params: linkParams,
          body: emptyBody,
          response: { 200: openObject },
        },
      },
      async (request) => link(p(request).code, p(request).version, p(request)[name]!),
    )
    app.delete(
      url,
      {
        config: manage,
        schema: {
          operationId: `removeProductVersion${noun}`,
          tags,
          summary: `Unlink one of the ${segment} from a DRAFT version`,
          params: linkParams,
          response: { 200: openObject },
        },
      },
      async (request) => unlink(p(request).code, p(request).version, p(request)[name]!),
    )
  }

  const plans = '/api/v1/products/:code/discountPlans'
  const planTags = ['Product']
  app.get(
    plans,
    {
      config: view,
      schema: {
        tags: planTags,
        summary: 'The discount plans linked to a product',
        params: params('code'),
        response: { 200: openObject },
      },
    },
    async (request) => products.discountPlans(p(request).code),
  )
  app.post(
    `${plans}/:dpCode`,
    {
      config: manage,
      schema: {
        operationId: 'addProductDiscountPlan',
        tags: planTags,
        summary: 'Link a discount plan to a product',
        params: params('code', 'dpCode'),
        body: emptyBody,
        response: { 200: openObject },
      },
    },
    async (request) => products.linkDiscountPlan(p(request).code, (request.params as { dpCode: string }).dpCode),
  )
  app.delete(
    `${plans}/:dpCode`,
    {
      config: manage,
      schema: {
        operationId: 'removeProductDiscountPlan',
        tags: planTags,
        summary: 'Unlink a discount plan from a product',
        params: params('code', 'dpCode'),
        response: { 200: openObject },
      },
    },
    async (request) => products.unlinkDiscountPlan(p(request).code, (request.params as { dpCode: string }).dpCode),
  )
}
