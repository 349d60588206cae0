import type { FastifyInstance } from 'fastify'
import type { Outbox } from '../../kernel/events/index.ts'
import { systemClock, type Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { registerPricingRoutes } from './pricing.routes.ts'
import { createPricingService } from './pricing.service.ts'

export type { PricingService, EvaluateInput } from './pricing.service.ts'
export { parsePriceFormula, evaluatePriceFormula, FormulaError, type PriceFormulaContext } from './el/index.ts'
/** The formula language itself, for other conditions written in it (invoice validation rules). */
export { parseFormula, evaluate, toElValue, ElDecimal, type ElValue, type Formula } from './el/index.ts'
export * from './models/index.ts'
export { planPublication, versionOn, type TimelineVersion, type PublicationPlan } from './timeline.model.ts'
export { decimalSchema, decimalWire, readDecimal } from './decimal-input.ts'
export { auditable, isoInstant, type AuditColumns } from './wire.ts'
export { pricingOn, type PublishedPricing } from './price-on-day.repository.ts'
export { matrixValuesOutside } from './pricing.repository.ts'

/** Pricing versions of charges and the pure price models (flat, matrix, formula) the rating engine calls. */
export function createPricingModule(deps: { db: Db; actorOf: ActorOf; clock?: Clock; outbox: Outbox }) {
  const service = createPricingService({ db: deps.db, clock: deps.clock ?? systemClock, outbox: deps.outbox })
  return {
    service,
    routes: (app: FastifyInstance) => registerPricingRoutes(app, service, deps.actorOf),
  }
}
