import { sql, type SQL } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'
import { billableOperations, markOperationsBilled } from '../ordering/index.ts'

/** How a run groups wallet operations into lines (the run's copy of its cycle's rules, §2.2). */
export interface Aggregation {
  readonly ignoreSubscriptions: boolean
  readonly ignoreOrders: boolean
  readonly dateAggregation: 'NONE' | 'DAY' | 'WEEK' | 'MONTH'
  readonly discountAggregation: boolean
  readonly disableAggregation: boolean
}

export interface LinesBatch {
  /** Wallet operations billed (each now BILLED, naming its line). */
  readonly operations: number
  readonly lines: number
}

/** A billed batch whose operations changed between reading and billing: the transaction is rolled back and run again. */
export class OperationsMoved extends Error {
  constructor() {
    super('wallet operations changed while they were billed')
  }
}

/**
 * The usage bucket an operation's date falls in: its day, its ISO week (Monday) or its month. Operation dates are
 * business days already (the tenant time zone's), so truncating them is truncating in that zone.
 */
function bucketOf(dateAggregation: Aggregation['dateAggregation']): SQL {
  switch (dateAggregation) {
    case 'NONE':
      return sql`date '1970-01-01'`
    case 'DAY':
      return sql`w.operation_date`
    case 'WEEK':
      return sql`date_trunc('week', w.operation_date)::date`
    case 'MONTH':
      return sql`date_trunc('month', w.operation_date)::date`
  }
}

/**
 * The group key columns of an operation (§2.2), none null, so that operations join back to their group by plain
 * equality (hashable): billing account, seller, currency, article, tax, rate, unit price; subscription unless
 * ignoreSubscriptions; order unless ignoreOrders (0 stands for none: ids start at 1); the date bucket; the discount
 * item when discounts are not aggregated; the operation itself when nothing is.
 */
function keyColumns(a: Aggregation, separateDiscounts: boolean): SQL {
  return sql`w.billing_account_id as k_ba, w.seller_id as k_seller, w.currency_id as k_currency,
    w.accounting_article_id as k_article, w.tax_id as k_tax, w.tax_percent as k_percent,
    w.unit_amount_without_tax as k_unit,
    ${a.ignoreSubscriptions ? sql`0::bigint` : sql`w.subscription_id`} as k_subscription,
    ${a.ignoreOrders ? sql`0::bigint` : sql`coalesce(w.order_id, 0)`} as k_order,
    ${bucketOf(a.dateAggregation)} as k_bucket,
    ${separateDiscounts ? sql`coalesce(w.discount_plan_item_id, 0)` : sql`0::bigint`} as k_item,
    ${a.disableAggregation ? sql`w.id` : sql`0::bigint`} as k_op`
}

const KEYS = [
  'k_ba',
  'k_seller',
  'k_currency',
  'k_article',
  'k_tax',
  'k_percent',
  'k_unit',
  'k_subscription',
  'k_order',
  'k_bucket',
  'k_item',
  'k_op',
] as const
const keyList = sql.raw(KEYS.join(', '))
const keysEqual = (left: string, right: string, keys: readonly string[] = KEYS) =>
  sql.raw(keys.map((k) => `${left}.${k} = ${right}.${k}`).join(' and '))

/** The sums of a group of operations, and its label's parts. */
const groupSums = sql`sum(c.quantity) as quantity, sum(c.amount_without_tax) as amount_without_tax,
  sum(c.amount_tax) as amount_tax, sum(c.amount_with_tax) as amount_with_tax,
  min(c.period_start) as period_start, max(c.period_end) as period_end, count(*)::int as n,
  min(c.description) as description`

/**
 * Bills the OPEN operations of a batch of billing accounts into invoice lines of `runId`, in one statement (§2.2,
 * §3.3): the operations of the accounts' principal wallets (a PREPAID wallet's were paid when it was credited) dated
 * before `cutoffDay` are grouped by the run's key, each group becomes a line (its id drawn from the line sequence, so
 * each operation can name its line in the same statement), and each operation becomes BILLED with its run and line.
 * The UPDATE claims: `status = 'OPEN'` is in its condition, so an operation billed meanwhile by another run is
 * skipped — and then the lines' sums would not be the billed operations', so the batch throws `OperationsMoved`
 * (its transaction is run again, as for a serialization failure) rather than commit them.
 *
 * With `discountAggregation` false, discount operations are lines of their own per discount item, each naming the
 * line of the operation it discounts (when both are billed in this batch: always so for one account's operations
 * of one run).
 */
export async function billOperations(
  tx: Db,
  runId: number,
  billingAccountIds: readonly number[],
  cutoffDay: string,
  aggregation: Aggregation,
): Promise<LinesBatch> {
  if (billingAccountIds.length === 0) return { operations: 0, lines: 0 }
  const separate = !aggregation.discountAggregation && !aggregation.disableAggregation
  const claimed = sql`claimed as (
    select w.id, w.operation_date, w.quantity, w.amount_without_tax, w.amount_tax, w.amount_with_tax, w.description,
      coalesce(w.start_date, w.operation_date) as period_start,
      -- A service period's end is exclusive: the last day it covers is the day before.
      coalesce(w.end_date - 1, w.operation_date) as period_end,
      w.discount_plan_item_id is not null as is_discount, w.discounted_wallet_operation_id,
      ${keyColumns(aggregation, separate)}
    from ${billableOperations(billingAccountIds, cutoffDay)}
  )`
  // Charge lines (and, when discounts aggregate like the others, every line): one per group key.
  const chargeGroups = sql`charge_groups as (
    select nextval('invoice_line_id_seq') as line_id, ${keyList}, ${groupSums}, 0::bigint as k_discounted
    from claimed c where ${separate ? sql`not c.is_discount` : sql`true`}
    group by ${keyList}
  ), charge_ops as (
    select c.id, c.operation_date, g.line_id from claimed c join charge_groups g on ${keysEqual('c', 'g')}
    where ${separate ? sql`not c.is_discount` : sql`true`}
  )`
  // Discount lines apart: per discount item and discounted line (the line of the operation each discounts).
  const discountGroups = separate
    ? sql`, discount_keyed as (
        select c.*, coalesce(co.line_id, 0) as k_discounted
        from claimed c left join charge_ops co on co.id = c.discounted_wallet_operation_id
        where c.is_discount
      ), discount_groups as (
        select nextval('invoice_line_id_seq') as line_id, ${keyList}, ${groupSums}, c.k_discounted
        from discount_keyed c group by ${keyList}, c.k_discounted
      ), discount_ops as (
        select c.id, c.operation_date, g.line_id from discount_keyed c
        join discount_groups g on ${keysEqual('c', 'g')} and c.k_discounted = g.k_discounted
      )`
    : sql``
  const groups = separate
    ? sql`(select * from charge_groups union all select * from discount_groups)`
    : sql`charge_groups`
  const ops = separate ? sql`(select * from charge_ops union all select * from discount_ops)` : sql`charge_ops`
  const result = await one<{ claimed: number; billed: number; lines: number }>(
    tx,
    sql`with ${claimed}, ${chargeGroups}${discountGroups},
    inserted as (
      insert into invoice_line (id, billing_run_id, billing_account_id, seller_id, currency_id, accounting_article_id,
        tax_id, tax_percent, subscription_id, order_id, label, quantity, unit_amount_without_tax, amount_without_tax,
        amount_tax, amount_with_tax, period_start, period_end, wallet_operation_count, discount_plan_item_id,
        discounted_line_id)
      select g.line_id, ${runId}, g.k_ba, g.k_seller, g.k_currency, g.k_article, g.k_tax, g.k_percent,
        nullif(g.k_subscription, 0), nullif(g.k_order, 0),
        -- A line of one operation reads as its charge; a line aggregating several, as its article.
        case when g.n = 1 and g.description is not null then g.description else coalesce(a.description, a.code) end,
        g.quantity, g.k_unit, g.amount_without_tax, g.amount_tax, g.amount_with_tax, g.period_start, g.period_end, g.n,
        nullif(g.k_item, 0), nullif(g.k_discounted, 0)
      from ${groups} g join accounting_article a on a.id = g.k_article
      returning id
    ),
    billed as (
      ${markOperationsBilled(runId, ops)}
    )
    select (select count(*)::int from claimed) as claimed, (select count(*)::int from billed) as billed,
      (select count(*)::int from inserted) as lines`,
  )
  const counts = result ?? { claimed: 0, billed: 0, lines: 0 }
  if (counts.claimed !== counts.billed) throw new OperationsMoved()
  return { operations: counts.billed, lines: counts.lines }
}
