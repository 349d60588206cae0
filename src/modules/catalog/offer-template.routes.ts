import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { DecimalJson } from '../../kernel/decimal-json.ts'
import { decimalOut, nullableDecimalOut } from '../../kernel/decimal-json.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import { CodeParams, errorResponses, ListQuery, NoContent } from '../../kernel/http/schemas.ts'
import { decimalSchema } from '../pricing/index.ts'
import { catalogRecord, CatalogPage, Code, CodeList, Description, NewCode, NullableText } from './catalog.schemas.ts'
import { OFFER_STATUSES } from './offer-status.model.ts'
import type { OfferTemplateService } from './offer-template.service.ts'

const DecimalIn = Type.Unsafe<number | string>(decimalSchema)
const NullableDecimalIn = Type.Unsafe<number | string | null>({ anyOf: [...decimalSchema.anyOf, { type: 'null' }] })
const INSTANT = 'ISO-8601 date-time, or a date (the start of that day in the tenant time zone)'
const Instant = (description: string) =>
  Type.Unsafe<string | null>({
    anyOf: [{ type: 'string', format: 'date-time' }, { type: 'string', format: 'date' }, { type: 'null' }],
    description,
  })
const Sequence = Type.Integer({ minimum: 0, maximum: 100000 })

/** The statuses in upper case (stored) or lower case: the server reads either. */
const LifeCycleStatus = Type.Unsafe<string>({
  type: 'string',
  enum: [...OFFER_STATUSES, ...OFFER_STATUSES.map((status) => status.toLowerCase())],
  description: 'a new offer starts IN_DESIGN unless told; a change follows the transition table',
})

const offerFields = {
  description: Type.Optional(Description),
  name: Type.Optional(NullableText(255)),
  lifeCycleStatus: Type.Optional(LifeCycleStatus),
  validFrom: Type.Optional(Instant(INSTANT)),
  validTo: Type.Optional(Instant(`${INSTANT}; exclusive end, null = open`)),
  autoEndOfEngagement: Type.Optional(Type.Boolean()),
  attributes: Type.Optional(
    Type.Record(
      Type.String(),
      Type.Unsafe<string | number | boolean | null>({ type: ['string', 'number', 'boolean', 'null'], maxLength: 2000 }),
      { maxProperties: 200, description: 'free-form numeric and text attributes' },
    ),
  ),
  offerComponents: Type.Optional(
    Type.Array(
      Type.Object(
        {
          productCode: Code,
          mandatory: Type.Optional(Type.Boolean()),
          defaultQuantity: Type.Optional(DecimalIn),
          minQuantity: Type.Optional(NullableDecimalIn),
          maxQuantity: Type.Optional(NullableDecimalIn),
          sequence: Type.Optional(Sequence),
        },
        { additionalProperties: false },
      ),
      { maxItems: 500, description: 'the products of the offer (replaces the set)' },
    ),
  ),
  offerServiceTemplates: Type.Optional(
    Type.Array(
      Type.Object(
        { serviceTemplateCode: Code, mandatory: Type.Optional(Type.Boolean()), sequence: Type.Optional(Sequence) },
        { additionalProperties: false },
      ),
      { maxItems: 500, description: 'legacy model: the services of the offer (replaces the set)' },
    ),
  ),
  discountPlans: Type.Optional(CodeList('codes of the discount plans orders may select (replaces the set)')),
  sellers: Type.Optional(
    CodeList(
      'codes of the sellers selling the offer (replaces the set; a seller-restricted caller sets its own sellers, the others stay)',
    ),
  ),
  offerTemplateCategories: Type.Optional(CodeList('codes of the offer’s categories (replaces the set)')),
}

const OfferTemplateInput = Type.Object(
  { code: NewCode, ...offerFields },
  { $id: 'OfferTemplateInput', title: 'OfferTemplateInput', additionalProperties: false },
)
const OfferTemplateUpdate = Type.Object(offerFields, {
  $id: 'OfferTemplateUpdate',
  title: 'OfferTemplateUpdate',
  additionalProperties: false,
})

const OfferComponent = Type.Object(
  {
    productCode: Type.String(),
    mandatory: Type.Boolean(),
    defaultQuantity: Type.Unsafe<DecimalJson>(decimalOut),
    minQuantity: Type.Unsafe<DecimalJson | null>(nullableDecimalOut),
    maxQuantity: Type.Unsafe<DecimalJson | null>(nullableDecimalOut),
    sequence: Type.Integer(),
  },
  { $id: 'OfferComponent', title: 'OfferComponent', additionalProperties: false },
)
const OfferServiceTemplate = Type.Object(
  { serviceTemplateCode: Type.String(), mandatory: Type.Boolean(), sequence: Type.Integer() },
  { $id: 'OfferServiceTemplate', title: 'OfferServiceTemplate', additionalProperties: false },
)
const OfferTemplate = catalogRecord('OfferTemplate', 'OfferTemplate', {
  offerComponents: Type.Array(OfferComponent, { description: 'the products of the offer, by sequence' }),
  offerServiceTemplates: Type.Array(OfferServiceTemplate, { description: 'legacy model: the services, by sequence' }),
  discountPlans: Type.Array(Type.String(), { description: 'codes of the discount plans orders may select' }),
  sellers: Type.Array(Type.String(), { description: 'codes of the sellers selling the offer' }),
  offerTemplateCategories: Type.Array(Type.String(), { description: 'codes of the offer’s categories' }),
})
const OfferTemplatePage = CatalogPage(OfferTemplate, 'OfferTemplatePage')

/** v1 offer templates (catalog.offers.*). */
export function registerOfferTemplateRoutes(server: FastifyInstance, offers: OfferTemplateService): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['OfferTemplate']
  const view = { policy: { role: 'catalog.offers.view' } }
  const manage = { policy: { role: 'catalog.offers.manage' } }
  const base = '/api/v1/offerTemplates'
  const writer = principalOf

  app.post(
    base,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create an offer template',
        body: OfferTemplateInput,
        response: { 201: OfferTemplate },
      },
    },
    async (request, reply) => reply.status(201).send(await offers.create(request.body, writer(request))),
  )
  app.get(
    base,
    {
      config: view,
      schema: {
        tags,
        summary: 'List offer templates, paginated',
        querystring: ListQuery,
        response: { 200: OfferTemplatePage },
      },
    },
    async (request) => offers.list(request.query),
  )
  app.get(
    `${base}/:code`,
    {
      config: view,
      schema: { tags, summary: 'Get an offer template', params: CodeParams, response: { 200: OfferTemplate } },
    },
    async (request) => offers.get(request.params.code),
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
        params: CodeParams,
        body: OfferTemplateUpdate,
        response: { 200: OfferTemplate, ...errorResponses(422) },
      },
    },
    async (request) => offers.update(request.params.code, request.body, writer(request)),
  )
  app.delete(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete an offer template that is not ACTIVE or LAUNCHED',
        params: CodeParams,
        response: { 204: NoContent, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      await offers.delete(request.params.code, writer(request))
      return reply.status(204).send(null)
    },
  )
}
