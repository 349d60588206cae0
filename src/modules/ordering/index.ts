import type { FastifyInstance } from 'fastify'
import { systemClock, type Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { CatalogCache } from '../catalog/index.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { registerOrderRoutes } from './order.routes.ts'
import { createOrderService } from './order.service.ts'

export type { OrderService, Caller } from './order.service.ts'
export { createOrderService } from './order.service.ts'
export type { OrderInput } from './order.model.ts'
export { recurringRatingJob } from './recurring-rating.job.ts'
export { walletOperationPartitionJob } from './wallet-operation-partition.job.ts'
export { rateDueRecurringCharges, rateRecurringChargesOf, type RecurringRatingResult } from './recurring-rating.ts'
export { seedOrderingDemo } from './demo-data.ts'
/** The business day an instant falls on in a time zone (`yyyy-MM-dd`). */
export { dayIn } from '../../kernel/time-zone.ts'
/** The rating glue shared with prepaid usage reservations. */
export {
  giveBackPlanStates,
  planInstanceKey,
  RatingCatalog,
  savePlanStates,
  storedChargeInput,
  storedOperationOwner,
  storedPlanInstances,
  storedScopes,
  type BillingParties,
  type PlanInstanceRow,
  type StoredCharge,
} from './rating-glue.ts'
export { cachedCatalog, type CatalogLookups } from './cached-catalog.ts'
export { chargeOperation, discountOperation } from './wallet-operation.model.ts'
export {
  insertWalletOperations,
  reserveWalletOperationIds,
  walletOperationsInsert,
  type WalletOperationValues,
} from './wallet-operation.repository.ts'

/** What invoicing's statements do to wallet operations (set-based: fragments and statements over its lines). */
export {
  billableOperations,
  markOperationsBilled,
  moveOperationsOfLines,
  orderCodeOf,
  releaseOperationsOfLines,
  releaseRunOperations,
  subscriptionCodeOf,
  type BilledLines,
} from './operation-billing.repository.ts'

/** Orders, subscriptions and their instances, wallet operations; preview and placement share the rating path. */
export function createOrderingModule(deps: {
  db: Db
  actorOf: ActorOf
  clock?: Clock
  catalogCache?: CatalogCache
  outbox: Outbox
}) {
  const service = createOrderService({
    db: deps.db,
    clock: deps.clock ?? systemClock,
    outbox: deps.outbox,
    ...(deps.catalogCache ? { catalogCache: deps.catalogCache } : {}),
  })
  return {
    service,
    routes: (app: FastifyInstance) => registerOrderRoutes(app, service, deps.actorOf),
  }
}
