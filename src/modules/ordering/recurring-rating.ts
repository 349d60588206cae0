import { sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Logger } from 'pino'
import { rows, type Db } from '../../kernel/db/database.ts'
import { entryOf, InvariantError, present } from '../../kernel/invariant.ts'
import { textArray } from '../../kernel/model/json.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import {
  applyDiscounts,
  nextServicePeriod,
  rateCharge,
  servicePeriodFrom,
  type DiscountableLine,
  type DiscountState,
  type PricingSnapshot,
  type RatedCharge,
  type ServicePeriod,
  type TaxRate,
} from '../rating/index.ts'
import { dayIn } from '../../kernel/time-zone.ts'
import {
  planInstanceKey,
  RatingCatalog,
  savePlanStates,
  storedPlanInstances,
  storedChargeInput,
  storedOperationOwner,
  recurringCalendar,
  storedScopes,
  type BillingParties,
  type PlanInstanceRow,
  type StoredCharge,
} from './rating-glue.ts'
import { chargeOperation, discountOperation } from './wallet-operation.model.ts'
import {
  insertWalletOperations,
  reserveWalletOperationIds,
  type WalletOperationValues,
} from './wallet-operation.repository.ts'
import { offerCodeColumn, offerTemplateJoin, productCodeColumn, productJoin, type ChargeRow } from '../catalog/index.ts'
import { billingPartiesColumns, billingPartiesJoins, billingPartiesOf } from '../accounts/index.ts'

export interface RecurringRatingOptions {
  readonly db: Db
  readonly now: Date
  readonly actor?: string
  /** Orders per transaction (default 100). */
  readonly batchSize?: number
  /**
   * Transactions at once (default 1). Only on a PostgreSQL server: the embedded database has one connection, on
   * which transactions cannot interleave.
   */
  readonly concurrency?: number
  readonly signal?: AbortSignal
  readonly log?: Pick<Logger, 'warn'>
  progress?(processed: number, failed: number): Promise<void>
}

export interface RecurringRatingResult {
  /** Service periods rated (one wallet operation each, plus its discounts). */
  processed: number
  /** Orders whose due periods could not be rated (left due for the next run). */
  failed: number
  walletOperations: number
}

interface DueCharge {
  id: number
  chargeId: number
  quantity: string
  unitPriceOverride: string | null
  subscriptionDate: string
  chargedToDate: string
  walletId: number
  subscriptionId: number
  subscriptionCode: string
  productInstanceId: number | null
  orderId: number
  attributes: Record<string, string> | null
  productCode: string | null
  offerCode: string
}

type OrderContext = BillingParties & { readonly id: number }

const storedCharge = (d: DueCharge): StoredCharge => ({
  chargeInstanceId: d.id,
  quantity: d.quantity,
  unitPriceOverride: d.unitPriceOverride,
  attributes: d.attributes,
  subscriptionCode: d.subscriptionCode,
  subscriptionDate: d.subscriptionDate,
  offerCode: d.offerCode,
  productCode: d.productCode,
})

const num = (value: unknown) => Number(value)

/** The periods of a charge that have ended by `today`, from its first period not yet rated. */
function endedPeriods(charge: ChargeRow, due: DueCharge, today: string): ServicePeriod[] {
  const periods: ServicePeriod[] = []
  let start = due.chargedToDate
  for (;;) {
    const period = servicePeriodFrom(recurringCalendar(charge), due.subscriptionDate, start, charge.subscriptionProrata)
    if (period.end > today) break
    periods.push(period)
    start = period.end
  }
  return periods
}

interface OrderBilling {
  operations: WalletOperationValues[]
  /** Index in `operations` of the operation each discount discounts, per discount operation. */
  discounts: { values: WalletOperationValues; discounted: number }[]
  charges: { id: number; chargedTo: string; next: string }[]
  states: { id: number; state: DiscountState }[]
  periods: number
}

/**
 * Rates the ended periods of one order's due recurring charges, with the order's discount instances: lines in
 * period order then charge order, discounts applied on top of each instance's state (FIXED amounts left, lines
 * counted), so the first periods get exactly the discounts the preview showed.
 */
function billOrder(
  order: OrderContext,
  due: readonly DueCharge[],
  instances: readonly PlanInstanceRow[],
  cache: RatingCatalog,
  run: { today: string; actor: string; pricesIncludeTax: boolean },
): OrderBilling {
  const { today, actor, pricesIncludeTax } = run
  interface Line {
    due: DueCharge
    charge: ChargeRow
    period: ServicePeriod
    round: number
    rated: RatedCharge
    tax: TaxRate
    pricing: PricingSnapshot
  }
  const lines: Line[] = []
  const charges: OrderBilling['charges'] = []
  for (const d of due) {
    const charge = cache.charge(d.chargeId)
    const periods = endedPeriods(charge, d, today)
    if (periods.length === 0) continue
    const tax = cache.tax(charge.taxClassId, order, `charge ${charge.code}`)
    for (const [round, period] of periods.entries()) {
      const pricing = cache.priceOn(charge, period.start, order)
      const rated = rateCharge(
        storedChargeInput(charge, storedCharge(d), { pricing, tax, parties: order, pricesIncludeTax, period }),
      )
      lines.push({ due: d, charge, period, round, rated, tax, pricing })
    }
    const last = present(periods.at(-1), 'last ended period').end
    charges.push({ id: d.id, chargedTo: last, next: nextServicePeriod(recurringCalendar(charge), last).end })
  }
  lines.sort((a, b) => a.round - b.round || a.due.id - b.due.id)

  const discountInstances = cache.discountInstances(instances, order)
  const instanceIds = new Map(instances.map((row) => [planInstanceKey(row), row.id]))
  const keyed = lines.map((line, i) => ({ line, key: `l:${i}` }))
  const discountable: DiscountableLine[] = keyed.map(({ line, key }) => ({
    key,
    amount: line.rated.amount,
    scopes: storedScopes(line.due.subscriptionId, line.due.productInstanceId),
    subscription: line.due.subscriptionCode,
  }))
  const applied = applyDiscounts(
    discountable,
    discountInstances,
    new Map(instances.map((row) => [planInstanceKey(row), row.state])),
    { minorUnits: order.minorUnits, pricesIncludeTax },
  )

  const ownerOf = (line: Line) =>
    storedOperationOwner(
      order,
      {
        walletId: line.due.walletId,
        chargeInstanceId: line.due.id,
        subscriptionId: line.due.subscriptionId,
        orderId: order.id,
      },
      actor,
    )
  const operations = lines.map((line) =>
    chargeOperation(
      ownerOf(line),
      line.charge,
      'RECURRING',
      line.rated,
      line.tax,
      line.pricing.versionId,
      line.period.start,
      line.period,
    ),
  )
  const lineOf = new Map(keyed.map(({ key, line }, index) => [key, { line, index }]))
  const discounts = applied.discounts.map((discount) => {
    const { line, index } = entryOf(lineOf, discount.lineKey, 'discounted line')
    return {
      values: discountOperation(
        ownerOf(line),
        'RECURRING',
        discount,
        entryOf(instanceIds, discount.instance.key, 'discount plan instance'),
        0,
        line.period.start,
        line.period,
      ),
      discounted: index,
    }
  })
  return {
    operations,
    discounts,
    charges,
    states: instances.map((row) => ({
      id: row.id,
      state: entryOf(applied.states, planInstanceKey(row), 'discount state'),
    })),
    periods: lines.length,
  }
}

async function dueCharges(db: Db, orderIds: readonly number[], today: string): Promise<DueCharge[]> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`select ci.id, ci.charge_id, ci.quantity::text as quantity, ci.unit_price_override::text as unit_price_override,
        to_char(ci.subscription_date, 'YYYY-MM-DD') as subscription_date,
        to_char(ci.charged_to_date, 'YYYY-MM-DD') as charged_to_date, ci.wallet_id, ci.subscription_id,
        s.code as subscription_code, ci.product_instance_id, s.order_id, pi.attributes,
        ${productCodeColumn} as product_code, ${offerCodeColumn} as offer_code
      from charge_instance ci
      join subscription s on s.id = ci.subscription_id
      ${offerTemplateJoin(sql`s.offer_template_id`)}
      left join product_instance pi on pi.id = ci.product_instance_id
      ${productJoin(sql`pi.product_id`)}
      where ci.status = 'ACTIVE' and ci.charge_type = 'RECURRING' and ci.next_rating_date <= ${today}::date
        and s.order_id = any(${textArray(orderIds.map(String))}::bigint[])
      order by s.order_id, ci.id`,
  )
  return found.map((r) => ({
    id: num(r.id),
    chargeId: num(r.charge_id),
    quantity: r.quantity as string,
    unitPriceOverride: r.unit_price_override as string | null,
    subscriptionDate: r.subscription_date as string,
    chargedToDate: r.charged_to_date as string,
    walletId: num(r.wallet_id),
    subscriptionId: num(r.subscription_id),
    subscriptionCode: r.subscription_code as string,
    productInstanceId: r.product_instance_id === null ? null : num(r.product_instance_id),
    orderId: num(r.order_id),
    attributes: (typeof r.attributes === 'string' ? JSON.parse(r.attributes) : r.attributes) as Record<
      string,
      string
    > | null,
    productCode: r.product_code as string | null,
    offerCode: r.offer_code as string,
  }))
}

async function orderContexts(db: Db, orderIds: readonly number[]): Promise<Map<number, OrderContext>> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`select o.id, ${billingPartiesColumns}
      from customer_order o
      ${billingPartiesJoins({ sellerId: sql`o.seller_id`, billingAccountId: sql`o.billing_account_id` })}
      where o.id = any(${textArray(orderIds.map(String))}::bigint[])`,
  )
  return new Map(found.map((r) => [num(r.id), { id: num(r.id), ...billingPartiesOf(r) }]))
}

/** Writes what a batch of orders billed: operations, then their discounts, charge timers and plan states. */
async function persist(db: Db, billings: readonly OrderBilling[], actor: string): Promise<number> {
  const count = billings.reduce((n, b) => n + b.operations.length + b.discounts.length, 0)
  const ids = await reserveWalletOperationIds(db, count)
  if (ids.length !== count) throw new InvariantError(`${ids.length} wallet operation ids reserved for ${count}`)
  const values: WalletOperationValues[] = []
  let next = 0
  // The ids come in order: each order's charge operations, then its discounts, which point at the charge they
  // discount by its index among the order's operations.
  const idAt = (i: number) => present(ids[i], `wallet operation id ${i}`)
  for (const billing of billings) {
    const first = next
    for (const operation of billing.operations) values.push({ ...operation, id: idAt(next++) })
    for (const d of billing.discounts) {
      values.push({ ...d.values, id: idAt(next++), discountedWalletOperationId: idAt(first + d.discounted) })
    }
  }
  await insertWalletOperations(db, values)
  const charges = billings.flatMap((b) => b.charges)
  if (charges.length > 0) {
    await db.execute(sql`update charge_instance ci set charged_to_date = v.charged_to::date, next_rating_date = v.next::date,
        updated = now(), updater = ${actor}
      from (select unnest(${textArray(charges.map((c) => String(c.id)))}::bigint[]) as id,
        unnest(${textArray(charges.map((c) => c.chargedTo))}) as charged_to,
        unnest(${textArray(charges.map((c) => c.next))}) as next) v
      where ci.id = v.id`)
  }
  await savePlanStates(
    db,
    billings.flatMap((b) => b.states),
    actor,
  )
  return values.length
}

/**
 * Rates the ended periods (by `today`) of the due recurring charges of some orders in the caller's transaction,
 * with their discount instances: the work of one batch of the recurring rating job, and of the invoice preview
 * (which rolls it back).
 */
async function rateOrders(
  tx: Db,
  orderIds: readonly number[],
  run: { today: string; actor: string; pricesIncludeTax: boolean },
  cache: RatingCatalog,
): Promise<{ periods: number; written: number }> {
  const { today } = run
  const due = await dueCharges(tx, orderIds, today)
  const instances = await storedPlanInstances(tx, orderIds)
  const contexts = await orderContexts(tx, orderIds)
  const chargeIds = [...new Set(due.map((d) => d.chargeId))]
  await cache.load(tx, { chargeIds, planIds: instances.map((i) => i.discountPlanId) })
  const prices = due.flatMap((d) =>
    endedPeriods(cache.charge(d.chargeId), d, today).map((p) => ({ chargeId: d.chargeId, day: p.start })),
  )
  await cache.load(tx, { prices })
  const billings = orderIds.map((id) =>
    billOrder(
      entryOf(contexts, id, 'order to rate'),
      due.filter((d) => d.orderId === id),
      instances.filter((i) => i.orderId === id),
      cache,
      run,
    ),
  )
  const written = await persist(tx, billings, run.actor)
  return { periods: billings.reduce((n, b) => n + b.periods, 0), written }
}

/**
 * Rates, in the caller's transaction, every recurring period of a billing account's orders that has ended by `today`
 * (tenant time zone), as the recurring rating job would: the invoice preview's "periods recurring rating would rate
 * up to that date". The orders are locked (`for no key update`): a concurrent job run waits rather than bills them
 * twice.
 */
export async function rateRecurringChargesOf(
  tx: Db,
  billingAccountId: number,
  today: string,
  actor: string,
): Promise<number> {
  const orders = await rows<{ id: unknown }>(
    tx,
    sql`select distinct o.id from customer_order o join subscription s on s.order_id = o.id
      join charge_instance ci on ci.subscription_id = s.id
      where o.billing_account_id = ${billingAccountId} and ci.status = 'ACTIVE' and ci.charge_type = 'RECURRING'
        and ci.next_rating_date <= ${today}::date
      order by o.id`,
  )
  if (orders.length === 0) return 0
  const orderIds = orders.map((r) => num(r.id))
  await tx.execute(sql`select id from customer_order where id = any(${textArray(orderIds.map(String))}::bigint[])
    order by id for no key update`)
  const { pricesIncludeTax } = await readTenantSettings(tx)
  return (await rateOrders(tx, orderIds, { today, actor, pricesIncludeTax }, new RatingCatalog())).written
}

/**
 * Rates recurring charges in arrears (DECISIONS "Recurring"): every ACTIVE recurring charge instance whose next
 * period has ended by today (tenant time zone) gets one wallet operation per ended period, with its discounts, rated
 * with the tenant's `pricesIncludeTax` as it is when the run starts.
 * Orders are claimed with `for no key update skip locked`, so concurrent runs (several instances, a manual run during the
 * timer's) never bill a period twice. A failing order (no price, no tax) is rolled back alone, counted as failed
 * and left due; the others proceed.
 */
export async function rateDueRecurringCharges(options: RecurringRatingOptions): Promise<RecurringRatingResult> {
  const { db } = options
  const actor = options.actor ?? 'RecurringRatingJob'
  const batchSize = options.batchSize ?? 100
  // The settings in force when the run starts: its time zone and whether prices include tax.
  const settings = await readTenantSettings(db)
  const today = dayIn(options.now, settings.timeZone)
  const cache = new RatingCatalog()
  /** Orders handed to a worker in this run (billed, failed, or claimed by another run). */
  const excluded = new Set<number>()
  const result: RecurringRatingResult = { processed: 0, failed: 0, walletOperations: 0 }

  const billBatch = (tx: Db, orderIds: readonly number[]) =>
    rateOrders(tx, orderIds, { today, actor, pricesIncludeTax: settings.pricesIncludeTax }, cache)

  // The due charge instances are walked once, in id order, a chunk at a time: each chunk gives the orders to bill
  // (all their due charges, also those further on, which are then no longer due when the walk reaches them).
  let cursor = 0
  let exhausted = false
  let turn: Promise<unknown> = Promise.resolve()
  const nextOrders = (): Promise<number[]> => {
    const taken = turn.then(async () => {
      const found: number[] = []
      while (!exhausted && found.length === 0) {
        const chunk = await rows<{ id: unknown; order_id: unknown }>(
          db,
          sql`select ci.id, s.order_id from charge_instance ci join subscription s on s.id = ci.subscription_id
            where ci.status = 'ACTIVE' and ci.charge_type = 'RECURRING' and ci.next_rating_date <= ${today}::date
              and s.order_id is not null and ci.id > ${cursor}
            order by ci.id limit ${batchSize * 10}`,
        )
        if (chunk.length === 0) exhausted = true
        for (const row of chunk) {
          const order = num(row.order_id)
          if (!excluded.has(order) && !found.includes(order)) {
            // A full batch stops before a new order: the walk resumes at its charges.
            if (found.length >= batchSize) break
            found.push(order)
          }
          cursor = num(row.id)
        }
      }
      for (const id of found) excluded.add(id)
      return found
    })
    turn = taken.catch(() => undefined)
    return taken
  }

  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted) return
      const ids = await nextOrders()
      if (ids.length === 0) return
      const done = await withTransaction(db, async (tx) => {
        // Claim the orders: another run (another instance) already billing one skips it here.
        const claimed = (
          await rows<{ id: unknown }>(
            tx,
            sql`select id from customer_order where id = any(${textArray(ids.map(String))}::bigint[])
              order by id for no key update skip locked`,
          )
        ).map((r) => num(r.id))
        if (claimed.length === 0) return { periods: 0, written: 0, failed: 0 }
        try {
          // All orders in one savepoint first; when one fails, again order by order.
          return { ...(await tx.transaction((sp) => billBatch(sp, claimed))), failed: 0 }
        } catch {
          // Retried below, order by order, to find the failing ones.
        }
        const total = { periods: 0, written: 0, failed: 0 }
        for (const id of claimed) {
          try {
            const one = await tx.transaction((sp) => billBatch(sp, [id]))
            total.periods += one.periods
            total.written += one.written
          } catch (error) {
            options.log?.warn({ err: error, orderId: id }, 'recurring rating failed for an order')
            total.failed += 1
          }
        }
        return total
      })
      result.processed += done.periods
      result.walletOperations += done.written
      result.failed += done.failed
      await options.progress?.(result.processed, result.failed)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker))
  return result
}
