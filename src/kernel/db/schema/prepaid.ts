import { sql } from 'drizzle-orm'
import { check, date, index, jsonb, numeric, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core'
import { auditColumns, idColumn, refColumn } from './columns.ts'
import { sellers, userAccounts } from './accounts.ts'
import { counterTemplates, offerTemplates } from './catalog.ts'
import { chargeInstances, subscriptions, wallets } from './ordering.ts'

const decimal = (name: string) => numeric(name)
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
const day = (name: string) => date(name, { mode: 'string' })

/** A subscription's counter of one template: created on the first usage that needs it. */
export const counterInstances = pgTable(
  'counter_instance',
  {
    id: idColumn(),
    counterTemplateId: refColumn('counter_template_id')
      .notNull()
      .references(() => counterTemplates.id),
    subscriptionId: refColumn('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    created: instant('created').notNull().defaultNow(),
    creator: text('creator'),
  },
  (t) => [unique('counter_instance_subscription_template_uq').on(t.subscriptionId, t.counterTemplateId)],
)

/** One calendar period of a counter: `level` free units (the ceiling), `value` units left. */
export const counterPeriods = pgTable(
  'counter_period',
  {
    id: idColumn(),
    counterInstanceId: refColumn('counter_instance_id')
      .notNull()
      .references(() => counterInstances.id),
    periodStart: day('period_start').notNull(),
    periodEnd: day('period_end').notNull(),
    level: decimal('level').notNull(),
    value: decimal('value').notNull(),
    ...auditColumns(),
  },
  (t) => [
    unique('counter_period_instance_start_uq').on(t.counterInstanceId, t.periodStart),
    check('counter_period_value_valid', sql`${t.value} >= 0 and ${t.value} <= ${t.level}`),
  ],
)

/**
 * A prepaid reservation: USAGE (a usage line held against a prepaid wallet and counters) or OFFER (an offer's
 * activation price held against a credit limit). OPEN until confirmed, cancelled or expired, once.
 */
export const reservations = pgTable(
  'reservation',
  {
    id: idColumn(),
    type: text('reservation_type').notNull(),
    status: text('status').notNull().default('OPEN'),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
    userAccountId: refColumn('user_account_id')
      .notNull()
      .references(() => userAccounts.id),
    subscriptionId: refColumn('subscription_id').references(() => subscriptions.id),
    walletId: refColumn('wallet_id').references(() => wallets.id),
    chargeInstanceId: refColumn('charge_instance_id').references(() => chargeInstances.id),
    offerTemplateId: refColumn('offer_template_id').references(() => offerTemplates.id),
    quantity: decimal('quantity').notNull(),
    /** Units taken from counter periods (the sum of `counterPeriodValues`). */
    freeQuantity: decimal('free_quantity').notNull().default('0'),
    amountWithoutTax: decimal('amount_without_tax').notNull().default('0'),
    /** The amount held against the wallet (or the credit limit). */
    amountWithTax: decimal('amount_with_tax').notNull().default('0'),
    counterPeriodValues: jsonb('counter_period_values').$type<Record<string, string>>().notNull().default({}),
    /**
     * What the reservation's rating took from its order's discount plan instances, by instance id (lines discounted
     * per subscription, FIXED amounts granted per item): held until it is confirmed, cancelled or expires.
     */
    discountTaken: jsonb('discount_taken')
      .$type<Record<string, { applied: Record<string, number>; fixedUsed: Record<string, string> }>>()
      .notNull()
      .default({}),
    consumedQuantity: decimal('consumed_quantity'),
    usageDate: instant('usage_date'),
    param1: text('param1'),
    param2: text('param2'),
    creditLimit: decimal('credit_limit'),
    subscriptionDate: day('subscription_date'),
    subscriptionCode: text('subscription_code'),
    reservationDate: instant('reservation_date').notNull(),
    expiryDate: instant('expiry_date').notNull(),
    closedDate: instant('closed_date'),
    ...auditColumns(),
  },
  (t) => [
    check('reservation_type_valid', sql`${t.type} in ('USAGE', 'OFFER')`),
    check('reservation_status_valid', sql`${t.status} in ('OPEN', 'CONFIRMED', 'CANCELLED', 'EXPIRED')`),
    index('reservation_open_expiry_idx')
      .on(t.expiryDate)
      .where(sql`${t.status} = 'OPEN'`),
    index('reservation_wallet_idx').on(t.walletId),
    index('reservation_seller_idx').on(t.sellerId),
  ],
)

/**
 * Every change of a wallet's balance or reserved amount, or of a counter period's value (`balanceDelta`): CREDIT,
 * HOLD, RELEASE, CONSUME. A wallet's balance and reserved amount and a counter period's value are the sums of theirs.
 */
export const balanceLedger = pgTable(
  'balance_ledger',
  {
    id: idColumn(),
    type: text('entry_type').notNull(),
    walletId: refColumn('wallet_id').references(() => wallets.id),
    counterPeriodId: refColumn('counter_period_id').references(() => counterPeriods.id),
    reservationId: refColumn('reservation_id').references(() => reservations.id),
    balanceDelta: decimal('balance_delta').notNull().default('0'),
    reservedDelta: decimal('reserved_delta').notNull().default('0'),
    reference: text('reference'),
    created: instant('created').notNull().defaultNow(),
    creator: text('creator'),
  },
  (t) => [
    check('balance_ledger_type_valid', sql`${t.type} in ('CREDIT', 'HOLD', 'RELEASE', 'CONSUME')`),
    check('balance_ledger_one_owner', sql`(${t.walletId} is null) <> (${t.counterPeriodId} is null)`),
    index('balance_ledger_wallet_idx').on(t.walletId),
    index('balance_ledger_counter_period_idx').on(t.counterPeriodId),
    index('balance_ledger_reservation_idx').on(t.reservationId),
  ],
)
