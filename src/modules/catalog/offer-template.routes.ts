import { errorResponses, NoContent } from '../../kernel/http/schemas.ts'
import type { FastifyInstance } from 'fastify'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { ListQuery } from '../../kernel/resources/resource.service.ts'
import { decimalSchema } from '../pricing/index.ts'
import { codeList, codeString, description, listOf, listQuery, newCode, openObject, params } from './catalog.schemas.ts'
import { OFFER_STATUSES } from './offer-status.model.ts'
import type { OfferInput, OfferTemplateService } from './offer-template.service.ts'

const nullableDecimal = { anyOf: [...decimalSchema.anyOf, { type: 'null' }] }
const instant = {
  anyOf: [{ type: 'string', format: 'date-time' }, { type: 'string', format: 'date' }, { type: 'null' }],
  description: 'ISO-8601 date-time, or a date (the start of that day in the tenant time zone)',
}

const offerFields = {
  description,
  name: { type: ['string', 'null'], maxLength: 255 },
  lifeCycleStatus: {
    type: 'string',
    maxLength: 20,
    description: `${OFFER_STATUSES.join(', ')} (any case); a new offer starts IN_DESIGN unless told`,
  },
  validFrom: instant,
  validTo: { ...instant, description: `${instant.description}; exclusive end, null = open` },
  autoEndOfEngagement: { type: 'boolean' },
  attributes: {
    type: 'object',
    maxProperties: 200,
    additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 2000 },
    description: 'free-form numeric and text attributes',
  },
  offerComponents: {
    type: 'array',
    maxItems: 500,
    description: 'the products of the offer (replaces the set)',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['productCode'],
      properties: {
        productCode: codeString,
        mandatory: { type: 'boolean' },
        defaultQuantity: decimalSchema,
        minQuantity: nullableDecimal,
        maxQuantity: nullableDecimal,
        sequence: { type: 'integer', minimum: 0, maximum: 100000 },
      },
    },
  },
  offerServiceTemplates: {
    type: 'array',
    maxItems: 500,
    description: 'legacy model: the services of the offer (replaces the set)',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['serviceTemplateCode'],
      properties: {
        serviceTemplateCode: codeString,
        mandatory: { type: 'boolean' },
        sequence: { type: 'integer', minimum: 0, maximum: 100000 },
      },
    },
  },
  discountPlans: { ...codeList, description: 'codes of the discount plans orders may select (replaces the set)' },
  sellers: { ...codeList, description: 'codes of the sellers selling the offer (replaces the set)' },
  offerTemplateCategories: { ...codeList, description: 'codes of the offer’s categories (replaces the set)' },
}

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['code'],
  properties: { code: newCode, ...offerFields },
}
const updateBody = { type: 'object', additionalProperties: false, properties: offerFields }

/** v1 offer templates (catalog.offers.*). */
export function registerOfferTemplateRoutes(
  app: FastifyInstance,
  offers: OfferTemplateService,
  actorOf: ActorOf,
): void {
  const tags = ['OfferTemplate']
  const view = { policy: { role: 'catalog.offers.view' } }
  const manage = { policy: { role: 'catalog.offers.manage' } }
  const base = '/api/v1/offerTemplates'
  const codeOf = (request: { params: unknown }) => (request.params as { code: string }).code

  app.post(
    base,
    {
      config: manage,
      schema: { tags, summary: 'Create an offer template', body: createBody, response: { 201: openObject } },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await offers.create(request.body as OfferInput & { code: string }, actorOf(request).username)),
  )
  app.get(
    base,
    {
      config: view,
      schema: {
        tags,
        summary: 'List offer templates, paginated',
        querystring: listQuery,
        response: { 200: listOf(openObject) },
      },
    },
    async (request) => offers.list(request.query as ListQuery),
  )
  app.get(
    `${base}/:code`,
    {
      config: view,
      schema: { tags, summary: 'Get an offer template', params: params('code'), response: { 200: openObject } },
    },
    async (request) => offers.get(codeOf(request)),
  )
  app.put(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary:
          'Update an offer template (partial; lists replace their set; status changes follow the transition table)',
        description: 'An invalid lifeCycleStatus change is a 422 OFFER_STATUS_TRANSITION_INVALID.',
        params: params('code'),
        body: updateBody,
        response: { 200: openObject, ...errorResponses(422) },
      },
    },
    async (request) => offers.update(codeOf(request), request.body as OfferInput, actorOf(request).username),
  )
  app.delete(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete an offer template that is not ACTIVE or LAUNCHED',
        params: params('code'),
        response: { 204: NoContent, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      await offers.delete(codeOf(request))
      return reply.status(204).send()
    },
  )
}
