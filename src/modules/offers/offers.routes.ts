import { principalOf } from '../../kernel/http/principal.ts'
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { AppError } from '../../kernel/errors.ts'
import { asAppError, errorResponse } from '../../kernel/http/error-handler.ts'
import { errorResponses } from '../../kernel/http/schemas.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import {
  commaList,
  linkHeader,
  listConditions,
  PAGE_MAX,
  parseExpand,
  parseFields,
  parseFilters,
  parseRange,
  parseSort,
  RANGE_UNIT,
} from './offers.model.ts'
import {
  AddProductBody,
  BulkAnswer,
  BulkBody,
  CodeParams,
  CountAnswer,
  CountQuery,
  CreateOfferBody,
  GetQuery,
  ListQuery,
  OfferList,
  OfferRecord,
  ProductParams,
  SearchBody,
  SearchQuery,
  UpdateOfferBody,
  UpsertOfferBody,
  type BulkResult,
} from './offers.schemas.ts'
import type { OffersService, Page } from './offers.service.ts'

const BASE = '/v1/catalog/offers'
const tags = ['Offers (second interface)']
const view = { policy: { role: 'catalog.offers.view' } }
const manage = { policy: { role: 'catalog.offers.manage' } }
const PAGE_HEADERS =
  'Headers: `Content-Range: offers a-b/total`, `Accept-Range: offers 100`, `Link` (first, prev, next, last). 206 when more offers exist than returned, 200 otherwise, 416 when the range starts past the last offer.'

/** `/v1/catalog/offers`: the catalog's offers in snake_case, paged by ranges (catalog.offers.*). */
export function registerOffersRoutes(
  server: FastifyInstance,
  offers: OffersService,
  actorOf: ActorOf,
  publicUrl: string,
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const writer = principalOf
  const location = (code: string) => `${publicUrl.replace(/\/+$/, '')}${BASE}/${encodeURIComponent(code)}`

  function sendPage(reply: FastifyReply, requestUrl: string, page: Page) {
    void reply.header('content-range', page.contentRange).header('accept-range', `${RANGE_UNIT} ${PAGE_MAX}`)
    const links = linkHeader(publicUrl, requestUrl, page.range, page.total)
    if (links) void reply.header('link', links)
    return reply.status(page.status).send(page.records)
  }
  const pageResponses = { 200: OfferList, 206: OfferList, ...errorResponses(416) }

  app.get(
    BASE,
    {
      config: view,
      schema: {
        operationId: 'listOffers',
        tags,
        summary: 'List offers by range, filtered by status, category and seller, sorted',
        description: PAGE_HEADERS,
        querystring: ListQuery,
        response: pageResponses,
      },
    },
    async (request, reply) => {
      const query = request.query
      const page = await offers.page({
        conditions: listConditions(query),
        sort: parseSort(commaList(query.sort) ?? []),
        range: parseRange(query.range),
        fields: parseFields(commaList(query.fields)),
        expand: parseExpand(commaList(query.expand)),
      })
      return sendPage(reply, request.url, page)
    },
  )

  app.post(
    `${BASE}/search`,
    {
      config: view,
      schema: {
        operationId: 'searchOffers',
        tags,
        summary: 'Search offers with filters and operators, by range',
        description: `${PAGE_HEADERS} The Link URLs carry the range as a query parameter: POST the same body to them.`,
        querystring: SearchQuery,
        body: SearchBody,
        response: pageResponses,
      },
    },
    async (request, reply) => {
      const body = request.body
      const page = await offers.page({
        conditions: parseFilters(body.filters),
        sort: parseSort(body.sort ?? []),
        range: parseRange(request.query.range ?? body.range),
        fields: parseFields(body.fields),
        expand: parseExpand(body.expand),
      })
      return sendPage(reply, request.url, page)
    },
  )

  app.get(
    `${BASE}/count`,
    {
      config: view,
      schema: {
        operationId: 'countOffers',
        tags,
        summary: 'Count offers, optionally by status, category and seller',
        querystring: CountQuery,
        response: { 200: CountAnswer },
      },
    },
    async (request) => ({ count: await offers.count(listConditions(request.query)) }),
  )

  app.get(
    `${BASE}/:code`,
    {
      config: view,
      schema: {
        operationId: 'getOffer',
        tags,
        summary: 'Get an offer',
        params: CodeParams,
        querystring: GetQuery,
        response: { 200: OfferRecord },
      },
    },
    async (request) =>
      offers.get(request.params.code, {
        fields: parseFields(commaList(request.query.fields)),
        expand: parseExpand(commaList(request.query.expand)),
      }),
  )

  app.post(
    BASE,
    {
      config: manage,
      schema: {
        operationId: 'createOffer',
        tags,
        summary: 'Create an offer (201 with Location)',
        description: 'A new offer starts draft (IN_DESIGN) unless `status` says otherwise.',
        body: CreateOfferBody,
        response: { 201: OfferRecord },
      },
    },
    async (request, reply) => {
      const record = await offers.create(request.body, writer(request))
      return reply.status(201).header('location', location(record.code)).send(record)
    },
  )

  app.post(
    `${BASE}/:code`,
    {
      config: manage,
      schema: {
        operationId: 'putOffer',
        tags,
        summary: 'Create or update an offer (200 updated, 201 created); newCode renames it',
        description: 'Only sent fields change. A taken newCode is a 409 OFFER_ALREADY_EXISTS.',
        params: CodeParams,
        body: UpsertOfferBody,
        response: { 200: OfferRecord, 201: OfferRecord, ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const { created, record } = await offers.upsert(request.params.code, request.body, writer(request))
      if (created) void reply.header('location', location(record.code))
      return reply.status(created ? 201 : 200).send(record)
    },
  )

  app.put(
    `${BASE}/:code`,
    {
      config: manage,
      schema: {
        operationId: 'updateOffer',
        tags,
        summary: 'Update an offer partially (only sent fields change)',
        description: 'A status change outside the transition table is a 422 OFFER_STATUS_TRANSITION_INVALID.',
        params: CodeParams,
        body: UpdateOfferBody,
        response: { 200: OfferRecord, ...errorResponses(422) },
      },
    },
    async (request) => offers.update(request.params.code, request.body, writer(request)),
  )

  app.delete(
    `${BASE}/:code`,
    {
      config: manage,
      schema: {
        operationId: 'deleteOffer',
        tags,
        summary: 'Delete an offer (204): drafts and retired offers only',
        description:
          'A ready or live offer must be retired first (422 OFFER_STATUS_TRANSITION_INVALID); an offer with ACTIVE subscriptions cannot be deleted (422 OFFER_HAS_ACTIVE_SUBSCRIPTIONS).',
        params: CodeParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      await offers.remove(request.params.code, writer(request))
      return reply.status(204).send(null)
    },
  )

  app.post(
    `${BASE}/:code/products`,
    {
      config: manage,
      schema: {
        operationId: 'addOfferProducts',
        tags,
        summary: 'Add a product to an offer (a product already there stays as it is)',
        params: CodeParams,
        body: AddProductBody,
        response: { 200: OfferRecord },
      },
    },
    async (request) => offers.addProduct(request.params.code, request.body.product_code, writer(request)),
  )

  app.delete(
    `${BASE}/:code/products/:product_code`,
    {
      config: manage,
      schema: {
        operationId: 'removeOfferProduct',
        tags,
        summary: 'Remove a product from an offer (204)',
        params: ProductParams,
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
    },
    async (request, reply) => {
      await offers.removeProduct(request.params.code, request.params.product_code, writer(request))
      return reply.status(204).send(null)
    },
  )

  app.post(
    `${BASE}/bulk`,
    {
      config: manage,
      schema: {
        operationId: 'bulkOffers',
        tags,
        summary: 'Create, upsert and delete offers in one request; each operation on its own',
        description:
          'Answers 200 with one result per operation, in order: `{ index, action, code, status, body | error }`, `status` and `body`/`error` being what the single call would have answered. A failing operation changes nothing and does not undo the others.',
        body: BulkBody,
        response: { 200: BulkAnswer },
      },
    },
    async (request) => {
      const outcomes = await offers.bulk(request.body.operations, writer(request))
      const results = outcomes.map((outcome): BulkResult => {
        const { index, action, code } = outcome
        if (outcome.ok) {
          return { index, action, code, status: outcome.status, ...(outcome.record ? { body: outcome.record } : {}) }
        }
        let error = asAppError(outcome.error)
        if (!error) {
          request.log.error({ err: outcome.error, operation: index }, 'unexpected error in a bulk operation')
          error = new AppError('INTERNAL_ERROR', `An unexpected error occurred (request ${request.id})`)
        }
        const answer = errorResponse('offers', error)
        return { index, action, code, status: answer.status, error: answer.body as BulkResult['error'] }
      })
      return { results }
    },
  )
}
