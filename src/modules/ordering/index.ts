import type { FastifyInstance } from 'fastify'
import { systemClock, type Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { CatalogCache } from '../catalog/index.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { registerOrderRoutes } from './order.routes.ts'
import { createOrderService } from './order.service.ts'

export type { OrderService } from './order.service.ts'
export { createOrderService } from './order.service.ts'
export { subscriptionCountsOfOffer } from './order.repository.ts'
export type { OrderInput } from './order.model.ts'
export { recurringRatingJob } from './recurring-rating.job.ts'
export { walletOperationPartitionJob } from './wallet-operation-partition.job.ts'
export { rateDueRecurringCharges, rateRecurringChargesOf, type RecurringRatingResult } from './recurring-rating.ts'
export { seedOrderingDemo } from './demo-data.ts'
/** The business day an instant falls on in a time zone (`yyyy-MM-dd`). */
export { dayIn } from '../../kernel/time-zone.ts'
/** What prepaid's usage reservations read of ordering's rows, and the use cases of usage billing they run. */
export { storedPlanInstances, type BillingParties, type PlanInstanceRow } from './rating-glue.ts'
export { cachedCatalog, type CatalogLookups } from './cached-catalog.ts'
export {
  billUsage,
  giveBackUsage,
  holdUsageDiscounts,
  rateUsage,
  usageDiscountsTaken,
  usageOperation,
  type RatedUsage,
  type UsageOperation,
} from './usage-billing.ts'
export {
  hasPlansColumn,
  lockedPlanInstances,
  openOperationsTotal,
  usageChargeById,
  usageChargeColumns,
  usageChargeJoin,
  usageChargeOfPrefixed,
  usageOperationsInsert,
  usageSubscriptionById,
  usageSubscriptionColumns,
  usageSubscriptionFrom,
  usageSubscriptionOf,
  type UsageChargeRow,
  type UsageSubscriptionRow,
} from './usage-billing.repository.ts'
/** Wallets as prepaid's wallet routes and reservations use them (balances change by prepaid's ledger only). */
export {
  changeWallet,
  createPrepaidWallet,
  lockedWalletsSelect,
  lockPrepaidWalletOf,
  lockWallets,
  prepaidWalletIdOf,
  walletBalancesUpdate,
  walletByCode,
  walletsOf,
  type WalletRow,
} from './prepaid-wallet.repository.ts'

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
export function createOrderingModule(deps: { db: Db; clock?: Clock; catalogCache?: CatalogCache; outbox: Outbox }) {
  const service = createOrderService({
    db: deps.db,
    clock: deps.clock ?? systemClock,
    outbox: deps.outbox,
    ...(deps.catalogCache ? { catalogCache: deps.catalogCache } : {}),
  })
  return {
    service,
    routes: (app: FastifyInstance) => registerOrderRoutes(app, service),
  }
}
