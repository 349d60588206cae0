import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { CodeParams, NoContent } from '../../kernel/http/schemas.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { PricingService } from './pricing.service.ts'
import {
  PriceEvaluation,
  PriceEvaluationInput,
  PricingDraftInput,
  PricingPublication,
  PricingVersions,
  PublishBody,
} from './pricing.schemas.ts'

/** Pricing versions of a charge (roles of charges: catalog.charges.*). */
export function registerPricingRoutes(server: FastifyInstance, pricing: PricingService, actorOf: ActorOf): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['Pricing']
  const view = { policy: { role: 'catalog.charges.view' } }
  const manage = { policy: { role: 'catalog.charges.manage' } }

  app.get(
    '/api/v1/charges/:code/pricing',
    {
      config: view,
      schema: {
        tags,
        summary: 'The pricing versions of a charge',
        params: CodeParams,
        response: { 200: PricingVersions },
      },
    },
    async (request) => pricing.list(request.params.code),
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
        params: CodeParams,
        body: PricingDraftInput,
        response: { 201: PricingVersions },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await pricing.saveDraft(request.params.code, request.body, actorOf(request).username)),
  )
  app.delete(
    '/api/v1/charges/:code/pricing/draft',
    {
      config: manage,
      schema: {
        operationId: 'discardChargePricingDraft',
        tags,
        summary: 'Discard the charge’s draft pricing version',
        params: CodeParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await pricing.discardDraft(request.params.code)
      return reply.status(204).send(null)
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
        params: CodeParams,
        body: PublishBody,
        response: { 200: PricingPublication },
      },
    },
    async (request) => pricing.publish(request.params.code, actorOf(request).username),
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
        params: CodeParams,
        body: PriceEvaluationInput,
        response: { 200: PriceEvaluation },
      },
    },
    async (request) => pricing.evaluate(request.params.code, request.body ?? {}),
  )
}
