/**
 * What prepaid's usage reservations read and write of ordering's rows: a subscription with its parties and a usage
 * charge instance (lookups, and the columns and joins of prepaid's one-statement reads, the same text every time so
 * they stay prepared), the order lock and plan states a rating holds or gives back, a confirmed usage's wallet
 * operations, and what a user account's OPEN wallet operations add up to.
 */
import { sql, type SQL } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'
import { billingPartiesColumns, billingPartiesJoins, billingPartiesOf, type BillingParties } from '../accounts/index.ts'
import {
  chargeCounterTemplateColumn,
  chargeMatchesParam1,
  chargeTemplateJoin,
  chargeUnfiltered,
  offerCodeColumn,
  offerTemplateJoin,
  productCodeColumn,
  productJoin,
} from '../catalog/index.ts'
import { storedPlanInstances, type PlanInstanceRow } from './rating-glue.ts'
import { walletOperationsInsert, type WalletOperationValues } from './wallet-operation.repository.ts'

const num = (value: unknown) => Number(value)

/** A subscription with what a usage reservation needs: its parties, user account and order. */
export interface UsageSubscriptionRow {
  readonly id: number
  readonly code: string
  readonly status: string
  readonly subscriptionDate: string
  readonly offerCode: string
  readonly userAccountId: number
  readonly orderId: number | null
  readonly parties: BillingParties
}

/** The subscription of a row selected with `usageSubscriptionColumns`. */
export function usageSubscriptionOf(r: Record<string, unknown>): UsageSubscriptionRow {
  return {
    id: num(r.id),
    code: r.code as string,
    status: r.status as string,
    subscriptionDate: r.subscription_date as string,
    offerCode: r.offer_code as string,
    userAccountId: num(r.user_account_id),
    orderId: r.order_id === null ? null : num(r.order_id),
    parties: billingPartiesOf(r),
  }
}

/** The columns of the subscription `s` of `usageSubscriptionFrom`, its offer's code and its billing parties. */
export const usageSubscriptionColumns = sql`s.id, s.code, s.status, to_char(s.subscription_date, 'YYYY-MM-DD') as subscription_date,
    ${offerCodeColumn} as offer_code, s.user_account_id, s.order_id, ${billingPartiesColumns}`

/** The subscription `s` with its offer template and billing parties (catalog's and accounts' joins). */
export const usageSubscriptionFrom = sql`from subscription s
  ${offerTemplateJoin(sql`s.offer_template_id`)}
  ${billingPartiesJoins({ sellerId: sql`s.seller_id`, userAccountId: sql`s.user_account_id` })}`

/** Whether the order of the subscription `s` has ACTIVE discount plan instances (`has_plans`). */
export const hasPlansColumn = sql`exists (select 1 from discount_plan_instance dpi
    where dpi.order_id = s.order_id and dpi.status = 'ACTIVE') as has_plans`

export async function usageSubscriptionById(db: Db, id: number): Promise<UsageSubscriptionRow | undefined> {
  const found = await one<Record<string, unknown>>(
    db,
    sql`select ${usageSubscriptionColumns} ${usageSubscriptionFrom} where s.id = ${id}`,
  )
  return found && usageSubscriptionOf(found)
}

/** A usage charge instance of a subscription, with its product and counter template. */
export interface UsageChargeRow {
  readonly id: number
  readonly chargeId: number
  readonly walletId: number
  readonly quantity: string
  readonly unitPriceOverride: string | null
  readonly attributes: Record<string, string> | null
  readonly productCode: string | null
  readonly productInstanceId: number | null
  readonly counterTemplateId: number | null
}

const usageChargeSelect = sql`select ci.id, ci.charge_id, ci.wallet_id, ci.product_instance_id, ci.quantity::text as quantity,
    ci.unit_price_override::text as unit_price_override, pi.attributes, ${productCodeColumn} as product_code, ${chargeCounterTemplateColumn}
  from charge_instance ci
  ${chargeTemplateJoin(sql`ci.charge_id`)}
  left join product_instance pi on pi.id = ci.product_instance_id
  ${productJoin(sql`pi.product_id`)}`

function usageChargeOf(r: Record<string, unknown>): UsageChargeRow {
  return {
    id: num(r.id),
    chargeId: num(r.charge_id),
    walletId: num(r.wallet_id),
    quantity: r.quantity as string,
    unitPriceOverride: r.unit_price_override as string | null,
    attributes: (typeof r.attributes === 'string' ? JSON.parse(r.attributes) : r.attributes) as Record<
      string,
      string
    > | null,
    productCode: r.product_code as string | null,
    productInstanceId: r.product_instance_id === null ? null : num(r.product_instance_id),
    counterTemplateId: r.counter_template_id === null ? null : num(r.counter_template_id),
  }
}

/**
 * Joins, as a lateral `u`, the usage charge instance of the subscription `s` by id, or the ACTIVE usage charge a
 * usage line's `param1` selects (a left join: none may match): a charge whose filterParam1 equals it before one
 * without filter (which matches any), then the first instance. Select `usageChargeColumns` from it.
 */
export function usageChargeJoin(by: { chargeInstanceId: SQL } | { param1: SQL }): SQL {
  if ('chargeInstanceId' in by)
    return sql`join lateral (${usageChargeSelect} where ci.id = ${by.chargeInstanceId}) u on true`
  return sql`left join lateral (${usageChargeSelect}
        where ci.subscription_id = s.id and ci.charge_type = 'USAGE' and ci.status = 'ACTIVE'
          and ${chargeMatchesParam1(by.param1)}
        order by ${chargeUnfiltered}, ci.id
        limit 1) u on true`
}

/** A usage charge's columns as `ci_`-prefixed ones of the lateral `u` (`usageChargeJoin`), beside other columns. */
export const usageChargeColumns = sql`u.id as ci_id, u.charge_id as ci_charge_id, u.wallet_id as ci_wallet_id,
  u.product_instance_id as ci_product_instance_id, u.quantity as ci_quantity,
  u.unit_price_override as ci_unit_price_override, u.attributes as ci_attributes,
  u.product_code as ci_product_code, u.counter_template_id as ci_counter_template_id`

/** The usage charge of a row selected with `usageChargeColumns`, or undefined when the left join found none. */
export function usageChargeOfPrefixed(r: Record<string, unknown>): UsageChargeRow | undefined {
  if (r.ci_id === null) return undefined
  return usageChargeOf(
    Object.fromEntries(
      Object.entries(r).flatMap(([key, value]) => (key.startsWith('ci_') ? [[key.slice(3), value]] : [])),
    ),
  )
}

export async function usageChargeById(db: Db, chargeInstanceId: number): Promise<UsageChargeRow> {
  const found = await one<Record<string, unknown>>(db, sql`${usageChargeSelect} where ci.id = ${chargeInstanceId}`)
  if (!found) throw new Error(`charge instance ${chargeInstanceId} not found`)
  return usageChargeOf(found)
}

/**
 * The ACTIVE discount plan instances of an order, read under the order's lock (`for no key update`, as recurring
 * rating takes it): the plan states a rating continues from, which no other rating changes until this transaction
 * ends. Lock order: a reservation, then its order, then counter periods and wallets.
 */
export async function lockedPlanInstances(db: Db, orderId: number): Promise<PlanInstanceRow[]> {
  await db.execute(sql`select id from customer_order where id = ${orderId} for no key update`)
  return storedPlanInstances(db, [orderId])
}

/**
 * The insert of a confirmed usage's wallet operations (ids from the table's sequence), as the body of a
 * data-modifying WITH query of prepaid's one-statement confirm, writing nothing when `condition` is false: one
 * parameter per column of a VALUES list, so the statement's prepared plan is kept.
 */
export function usageOperationsInsert(operations: readonly Omit<WalletOperationValues, 'id'>[], condition: SQL): SQL {
  return walletOperationsInsert(operations, condition)
}

/**
 * What the OPEN wallet operations of a user account's wallets dated in [month.start, month.end) add up to (with
 * tax), as a scalar subquery (null: none).
 */
export const openOperationsTotal = (userAccountId: number, month: { start: string; end: string }): SQL =>
  sql`(select sum(wo.amount_with_tax) from wallet_operation wo join wallet w on w.id = wo.wallet_id
          where w.user_account_id = ${userAccountId} and wo.status = 'OPEN'
            and wo.operation_date >= ${month.start}::date and wo.operation_date < ${month.end}::date)`
