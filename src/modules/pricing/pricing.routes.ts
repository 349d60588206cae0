import type { FastifyInstance } from 'fastify'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { DraftInput, EvaluateInput, PricingService } from './pricing.service.ts'
import {
  codeParams,
  draftBody,
  evaluateBody,
  evaluateResponse,
  publishBody,
  publishResponse,
  versionsResponse,
} from './pricing.schemas.ts'

/** Pricing versions of a charge (roles of charges: catalog.charges.*). */
export function registerPricingRoutes(app: FastifyInstance, pricing: PricingService, actorOf: ActorOf): void {
  const tags = ['Pricing']
  const view = { policy: { role: 'catalog.charges.view' } }
  const manage = { policy: { role: 'catalog.charges.manage' } }
  const codeOf = (request: { params: unknown }) => (request.params as { code: string }).code

  app.get(
    '/api/v1/charges/:code/pricing',
    {
      config: view,
      schema: {
        tags,
        summary: 'The pricing versions of a charge',
        params: codeParams,
        response: { 200: versionsResponse },
      },
    },
    async (request) => pricing.list(codeOf(request)),
  )
  app.put(
    '/api/v1/charges/:code/pricing/draft',
    {
      config: manage,
      schema: {
        operationId: 'saveChargePricingDraft',
        tags,
        summary: 'Create or replace the charge’s draft pricing version (FLAT, MATRIX or FORMULA)',
        description:
          'One mutable draft per charge: the first call creates the next version number, later calls replace it. ' +
          'MATRIX columns take label and allowed values from their attribute; rows get a 0-based priority. ' +
          'FORMULA stores price 0 and keeps price_fx, parsed now (a syntax error is a 400 with its position).',
        params: codeParams,
        body: draftBody,
        response: { 201: versionsResponse },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await pricing.saveDraft(codeOf(request), request.body as DraftInput, actorOf(request).username)),
  )
  app.delete(
    '/api/v1/charges/:code/pricing/draft',
    {
      config: manage,
      schema: {
        operationId: 'discardChargePricingDraft',
        tags,
        summary: 'Discard the charge’s draft pricing version',
        params: codeParams,
      },
    },
    async (request, reply) => {
      await pricing.discardDraft(codeOf(request))
      return reply.status(204).send()
    },
  )
  app.post(
    '/api/v1/charges/:code/pricing/publish',
    {
      config: manage,
      schema: {
        operationId: 'publishChargePricing',
        tags,
        summary: 'Publish the draft: the open-ended predecessor closes at its validFrom, the charge becomes ACTIVE',
        description: '409 without a draft, or when the draft starts at or before the latest published version.',
        params: codeParams,
        body: publishBody,
        response: { 200: publishResponse },
      },
    },
    async (request) => pricing.publish(codeOf(request), actorOf(request).username),
  )
  app.post(
    '/api/v1/charges/:code/pricing/evaluate',
    {
      config: view,
      schema: {
        operationId: 'evaluateChargePricing',
        tags,
        summary: 'Price one unit of the charge for a quantity and attribute values, as rating would',
        description:
          'Uses the version published on `date` (default today, tenant time zone), or the given `version` (a draft ' +
          'included). No matching MATRIX row or no price that day: 400 PRICE_NOT_FOUND; a formula that cannot be ' +
          'evaluated: 400 INVALID_FORMULA with its position.',
        params: codeParams,
        body: evaluateBody,
        response: { 200: evaluateResponse },
      },
    },
    async (request) => pricing.evaluate(codeOf(request), (request.body ?? {}) as EvaluateInput),
  )
}
