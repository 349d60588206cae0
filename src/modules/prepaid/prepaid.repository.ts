import { sql, type SQL } from 'drizzle-orm'
import type { Outbox } from '../../kernel/events/index.ts'
import { coalescedReads } from '../../kernel/db/coalesced-reads.ts'
import type { Decimal } from 'decimal.js'
import { one, preparedRows, rows, type Db } from '../../kernel/db/database.ts'
import { money } from '../../kernel/money.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import {
  hasPlansColumn,
  lockedWalletsSelect,
  openOperationsTotal,
  prepaidWalletIdOf,
  usageChargeColumns,
  usageChargeJoin,
  usageChargeOfPrefixed,
  usageOperationsInsert,
  usageSubscriptionColumns,
  usageSubscriptionFrom,
  usageSubscriptionOf,
  walletBalancesUpdate,
  type UsageChargeRow,
  type UsageOperation,
  type UsageSubscriptionRow,
} from '../ordering/index.ts'
import { sellerAndUserAccountJoins, sellerCodeOf, sellerOfUserAccount, userAccountJoins } from '../accounts/index.ts'
/** Accounts' and the catalog's lookups a reservation or wallet needs, read through the modules owning them. */
export {
  currencyOfUserAccount,
  lockUserAccount,
  sellerIdByCode,
  sellerIdOfUserAccount,
  userAccountIdByCode,
} from '../accounts/index.ts'
export { offerProducts } from '../catalog/index.ts'
/** Ordering's rows a usage reservation and a wallet read and lock, read through ordering. */
export {
  changeWallet,
  createPrepaidWallet,
  lockPrepaidWalletOf,
  lockWallets,
  usageChargeById,
  usageSubscriptionById as subscriptionById,
  walletByCode,
  walletsOf,
  type UsageChargeRow,
  type UsageSubscriptionRow as SubscriptionRow,
  type WalletRow,
} from '../ordering/index.ts'
import type { DiscountState } from '../rating/index.ts'
import {
  catalogGenerationSql,
  counterTemplateColumns,
  counterTemplateJoins,
  counterTemplateOf,
  offerTemplateJoin,
  type CounterTemplateRow,
} from '../catalog/index.ts'
import { CLOSING_TRIGGER, reservationMachine, type ReservationStatus } from './reservation.machine.ts'

const num = (value: unknown) => Number(value)
const ids = (values: readonly number[]) => textArray(values.map(String))

/**
 * An `in (...)` list of ids as one parameter each (false when empty): unlike an array parameter, PostgreSQL knows its
 * length whatever the values, so a prepared statement's generic plan is kept (see `ledgerQueries`).
 */
function idIn(column: SQL, values: readonly number[]): SQL {
  return values.length === 0
    ? sql`false`
    : sql`${column} in (${sql.join(
        values.map((v) => sql`${v}::bigint`),
        sql`, `,
      )})`
}

/** What a usage reservation starts from, read in one statement (see `usageContext`). */
export interface UsageContext {
  readonly subscription: UsageSubscriptionRow
  /**
   * The ACTIVE usage charge `param1` selects, if any: a charge whose filterParam1 equals it before one without filter
   * (which matches any), then the first instance.
   */
  readonly charge: UsageChargeRow | undefined
  /** Its counter template, if it has one. */
  readonly counter: CounterTemplateRow | undefined
  /**
   * The subscription's existing period of that counter containing the usage day, if one was opened, with its units
   * left when read (not locked: see `reserveHeld`).
   */
  readonly period: { readonly id: number; readonly start: string; readonly value: string } | undefined
  /** The PREPAID wallet a usage reservation of the user account holds against (its first by code), if any. */
  readonly prepaidWalletId: number | undefined
  /** Whether the subscription's order has ACTIVE discount plan instances. */
  readonly hasPlans: boolean
  /** The catalog generation, read before any catalog row (the catalog cache's reads are at it). */
  readonly catalogGeneration: bigint
}

/** What a reserve looks up: a subscription by code, the usage charge `param1` selects, on the usage day. */
export interface UsageKey {
  readonly subscriptionCode: string
  readonly param1: string
  readonly day: string
}

/**
 * For each key, a subscription by code with, in the same statement, the usage charge `param1` selects, its
 * counter template and calendar, the counter period already open on `day`, and whether its order has ACTIVE
 * discount plan instances: a reserve's lookups in one round trip, for several reserves at once (`usageContextSoon`).
 * Nothing is locked.
 */
export async function usageContexts(db: Db, keys: readonly UsageKey[]): Promise<(UsageContext | undefined)[]> {
  // Every reserve sends this text (a few joins to plan), one text per count of keys: prepared once per connection.
  // `offset 0` keeps PostgreSQL from flattening the lateral subquery into a join with the keys, so each key stays the
  // index lookups of one subscription; flattened, its plan reads whole tables (docs/performance.md, "Figures behind the code").
  const found = await preparedRows<Record<string, unknown>>(
    db,
    sql`select k.i as key_index, x.* from (values ${sql.join(
      keys.map((k, i) => sql`(${sql.raw(String(i))}, ${k.subscriptionCode}::text, ${k.param1}::text, ${k.day}::date)`),
      sql`, `,
    )}) as k(i, code, param1, day)
      cross join lateral (select ${usageSubscriptionColumns}, ${hasPlansColumn}, ${usageChargeColumns},
        ${counterTemplateColumns}, per.id as period_id, per.start as period_start, per.value as period_value,
        ${prepaidWalletIdOf(sql`s.user_account_id`)} as prepaid_wallet_id,
        ${catalogGenerationSql} as catalog_generation
      ${usageSubscriptionFrom}
      ${usageChargeJoin({ param1: sql`k.param1` })}
      ${counterTemplateJoins(sql`u.counter_template_id`)}
      left join lateral (select p.id, to_char(p.period_start, 'YYYY-MM-DD') as start, p.value::text as value
          from counter_period p
          join counter_instance i on i.id = p.counter_instance_id
        where i.subscription_id = s.id and i.counter_template_id = t.id
          and p.period_start <= k.day and p.period_end > k.day
        order by p.period_start desc limit 1) per on true
      where s.code = k.code offset 0) x`,
  )
  const byKey = new Map(found.map((r) => [Number(r.key_index), r]))
  return keys.map((_, i) => {
    const r = byKey.get(i)
    return r && usageContextOf(r)
  })
}

/** One reserve's lookups (`usageContexts`), on a transaction's connection or alone. */
export async function usageContext(db: Db, key: UsageKey): Promise<UsageContext | undefined> {
  const [found] = await usageContexts(db, [key])
  return found
}

/** `usageContext` on the pool, sent with the other reserves' of the same turn of the event loop. */
export const usageContextSoon = coalescedReads(usageContexts)

function usageContextOf(found: Record<string, unknown>): UsageContext {
  return {
    subscription: usageSubscriptionOf(found),
    charge: usageChargeOfPrefixed(found),
    counter: counterTemplateOf(found),
    period:
      found.period_id === null
        ? undefined
        : { id: num(found.period_id), start: found.period_start as string, value: found.period_value as string },
    prepaidWalletId: found.prepaid_wallet_id === null ? undefined : num(found.prepaid_wallet_id),
    hasPlans: found.has_plans === true,
    catalogGeneration: BigInt(found.catalog_generation as string),
  }
}

/** What a confirm rates a usage reservation's consumed part with (see `usageByIds`). */
export interface UsageRating {
  readonly subscription: UsageSubscriptionRow
  readonly charge: UsageChargeRow
  /** Whether the subscription's order has ACTIVE discount plan instances. */
  readonly hasPlans: boolean
  /** The catalog generation, read before any catalog row (the catalog cache's reads are at it). */
  readonly catalogGeneration: bigint
}

/**
 * A subscription and one of its charge instances by id, whether its order has ACTIVE discount plan instances, and
 * the catalog generation, in one statement (with the other confirms' of the same turn: `db` is the pool). Nothing
 * is locked.
 */
export async function usageByIds(
  db: Db,
  subscriptionId: number,
  chargeInstanceId: number,
): Promise<UsageRating | undefined> {
  return await usageRatingSoon(db, { subscriptionId, chargeInstanceId })
}

/** `usageByIds` for several confirms at once, each key's result by its position. */
async function usageRatings(
  db: Db,
  keys: readonly { subscriptionId: number; chargeInstanceId: number }[],
): Promise<(UsageRating | undefined)[]> {
  // `offset 0`: one subscription's lookups per key (see `usageContexts`).
  const found = await preparedRows<Record<string, unknown>>(
    db,
    sql`select k.i as key_index, x.* from (values ${sql.join(
      keys.map((k, i) => sql`(${sql.raw(String(i))}, ${k.subscriptionId}::bigint, ${k.chargeInstanceId}::bigint)`),
      sql`, `,
    )}) as k(i, subscription_id, charge_instance_id)
      cross join lateral (select ${usageSubscriptionColumns}, ${hasPlansColumn}, ${usageChargeColumns},
        ${catalogGenerationSql} as catalog_generation
      ${usageSubscriptionFrom}
      ${usageChargeJoin({ chargeInstanceId: sql`k.charge_instance_id` })}
      where s.id = k.subscription_id offset 0) x`,
  )
  const byKey = new Map(found.map((r) => [Number(r.key_index), r]))
  return keys.map((_, i) => {
    const r = byKey.get(i)
    return (
      r && {
        subscription: usageSubscriptionOf(r),
        charge: usageChargeOfPrefixed(r)!,
        hasPlans: r.has_plans === true,
        catalogGeneration: BigInt(r.catalog_generation as string),
      }
    )
  })
}

/** `usageRatings` on the pool, one key at a time, sent with the other confirms' of the same turn. */
const usageRatingSoon = coalescedReads(usageRatings)

/**
 * The counter period of a subscription's counter containing a period start, created on first use with
 * `value = level = ceiling` and its CREDIT ledger row (concurrent first uses create one). Not locked.
 */
export async function ensureCounterPeriod(
  db: Db,
  counter: { subscriptionId: number; templateId: number; start: string; end: string; ceiling: string },
  actor: string,
): Promise<number> {
  // The common case, one statement: the period exists already.
  const [existing] = await preparedRows<{ id: unknown }>(
    db,
    sql`select p.id from counter_period p join counter_instance i on i.id = p.counter_instance_id
      where i.subscription_id = ${counter.subscriptionId} and i.counter_template_id = ${counter.templateId}
        and p.period_start = ${counter.start}::date`,
  )
  if (existing) return num(existing.id)
  await db.execute(sql`insert into counter_instance (counter_template_id, subscription_id, creator)
    values (${counter.templateId}, ${counter.subscriptionId}, ${actor}) on conflict do nothing`)
  const instance = await one<{ id: unknown }>(
    db,
    sql`select id from counter_instance where subscription_id = ${counter.subscriptionId} and counter_template_id = ${counter.templateId}`,
  )
  const created = await one<{ id: unknown }>(
    db,
    sql`insert into counter_period (counter_instance_id, period_start, period_end, level, value, creator)
      values (${num(instance!.id)}, ${counter.start}::date, ${counter.end}::date, ${counter.ceiling}::numeric,
        ${counter.ceiling}::numeric, ${actor})
      on conflict do nothing returning id`,
  )
  if (created) {
    await db.execute(sql`insert into balance_ledger (entry_type, counter_period_id, balance_delta, reference, creator)
      values ('CREDIT', ${num(created.id)}, ${counter.ceiling}::numeric, 'counter period opened', ${actor})`)
    return num(created.id)
  }
  const found = await one<{ id: unknown }>(
    db,
    sql`select id from counter_period where counter_instance_id = ${num(instance!.id)} and period_start = ${counter.start}::date`,
  )
  return num(found!.id)
}

/** Locks counter periods in id order (the first of the lock order: reservation, counter periods, wallets). */
export async function lockCounterPeriods(db: Db, periodIds: readonly number[]): Promise<Map<number, string>> {
  if (periodIds.length === 0) return new Map()
  const found = await preparedRows<{ id: unknown; value: string }>(
    db,
    sql`select id, value::text as value from counter_period where id = any(${ids(periodIds)}::bigint[])
      order by id for update`,
  )
  return new Map(found.map((r) => [num(r.id), r.value]))
}

export type LedgerType = 'CREDIT' | 'HOLD' | 'RELEASE' | 'CONSUME'

/** One ledger row and the change it records, applied to its wallet or counter period (locked by the caller). */
export interface LedgerEntry {
  readonly type: LedgerType
  readonly walletId?: number
  readonly counterPeriodId?: number
  readonly reservationId?: number | null
  /** Wallet balance change, or counter period value change. */
  readonly balanceDelta: string
  /** Wallet reserved amount change. */
  readonly reservedDelta?: string
  readonly reference?: string | null
}

/**
 * Writes ledger entries and applies each to its wallet (`balance`, `reserved`) or counter period (`value`): the
 * stored figures stay the sums of their ledger rows. The rows must be locked by the caller.
 */
export async function applyLedger(
  db: Db,
  entries: readonly LedgerEntry[],
  actor: string,
  report: PrepaidReport,
): Promise<void> {
  if (entries.length === 0) return
  await db.execute(
    sql`with ${ledgerQueries(entries, actor, report, null)} select (select count(*) from ledger) as entries`,
  )
}

/**
 * The WITH queries writing ledger entries and applying them (see `applyLedger`): the rows, then each wallet and
 * counter period changed by the sum of its rows (data-modifying WITH queries all run, once, whether the final select
 * reads them or not). `reservationId`, when given, is the reservation of every entry (an expression); `condition`, when
 * false, writes and applies none of them. `lockedPeriods`, when given, names a WITH query of the same statement giving
 * the changed counter periods' `id` and `value` as read under their row locks: the new values then start from those. In
 * one statement that waited for a period's lock they must: PostgreSQL checks an UPDATE's new row against the table's
 * check constraints when computed from the row as the statement's snapshot saw it, before it finds that row changed
 * and computes it again from the committed one — units given back meanwhile would otherwise fail `value >= 0`.
 */
function ledgerQueries(
  entries: readonly LedgerEntry[],
  actor: string,
  report: PrepaidReport,
  reservationId: SQL | null,
  condition: SQL = sql`true`,
  lockedPeriods: SQL | null = null,
): SQL {
  // A VALUES list, not unnested arrays: PostgreSQL then knows the row count whatever the parameters, so a prepared
  // statement's generic plan costs what a custom one does and is kept (planning was a third of a reservation's cost).
  const values =
    entries.length === 0
      ? sql`select null::text, null::bigint, null::bigint, null::bigint, null::numeric, null::numeric, null::text
          where false`
      : sql`values ${sql.join(
          entries.map(
            (e) => sql`(${e.type}::text, ${e.walletId ?? null}::bigint, ${e.counterPeriodId ?? null}::bigint,
              ${e.reservationId ?? null}::bigint, ${e.balanceDelta}::numeric, ${e.reservedDelta ?? '0'}::numeric,
              ${e.reference ?? null}::text)`,
          ),
          sql`, `,
        )}`
  // A period's value the new one starts from: as read under its lock when given (a period no lock read: its own).
  const periodValue = lockedPeriods === null ? sql`value` : sql`coalesce(l.value, counter_period.value)`
  return sql`entries as (
      select * from (${values}) as v(t, w, c, r, b, d, ref) where ${condition}
    ), ledger as (
      insert into balance_ledger (entry_type, wallet_id, counter_period_id, reservation_id, balance_delta,
        reserved_delta, reference, creator)
      select t, w, c, ${reservationId ?? sql`r`}, b, d, ref, ${actor} from entries returning id
    ), wallets as (
      ${walletBalancesUpdate(sql`select w, sum(b) as b, sum(d) as d from entries where w is not null group by w`, actor)}
    )${sql.join(
      lowered(entries).map((walletId, n) => sql`, ${report.lowBalance(walletId, sql`wallets`, `evl${n}`)}`),
      sql``,
    )}, counters as (
      update counter_period set value = ${periodValue} + s.b, updated = now(), updater = ${actor}
      from (select c, sum(b) as b from entries where c is not null group by c) s${
        lockedPeriods === null ? sql`` : sql` left join ${lockedPeriods} l on l.id = s.c`
      }
      where counter_period.id = s.c returning counter_period.id
    )`
}

/** Counter period id → units as a JSON object whose values are numbers written exactly (decimal text). */
const unitsJson = (units: Readonly<Record<string, string>>) =>
  `{${Object.entries(units)
    .map(([id, value]) => `${JSON.stringify(id)}:${value}`)
    .join(',')}}`

export interface ReservationRow {
  readonly id: number
  readonly type: 'USAGE' | 'OFFER'
  readonly status: ReservationStatus
  readonly sellerId: number
  readonly userAccountId: number
  readonly subscriptionId: number | null
  readonly walletId: number | null
  readonly chargeInstanceId: number | null
  readonly offerTemplateId: number | null
  readonly quantity: string
  readonly freeQuantity: string
  readonly amountWithoutTax: string
  readonly amountWithTax: string
  readonly counterPeriodValues: Record<string, string>
  /** What its rating took from discount plan instances, by instance id (see `discountStateTaken`). */
  readonly discountTaken: Record<string, DiscountState>
  readonly usageDate: Date | null
  readonly usageDay: string | null
  readonly param1: string | null
  readonly creditLimit: string | null
  readonly subscriptionDate: string | null
  readonly subscriptionCode: string | null
  readonly expiryDate: Date
}

const reservationColumns = sql`id, reservation_type, status, seller_id, user_account_id, subscription_id, wallet_id,
  charge_instance_id, offer_template_id, quantity::text as quantity, free_quantity::text as free_quantity,
  amount_without_tax::text as amount_without_tax, amount_with_tax::text as amount_with_tax,
  counter_period_values::text as counter_period_values, discount_taken, usage_date,
  param1, credit_limit::text as credit_limit, to_char(subscription_date, 'YYYY-MM-DD') as subscription_date,
  subscription_code, expiry_date`

function reservationOf(r: Record<string, unknown>, timeZoneDay: (d: Date) => string): ReservationRow {
  const optional = (v: unknown) => (v === null ? null : num(v))
  const usageDate = r.usage_date === null ? null : new Date(r.usage_date as string)
  return {
    id: num(r.id),
    type: r.reservation_type as 'USAGE' | 'OFFER',
    status: r.status as ReservationStatus,
    sellerId: num(r.seller_id),
    userAccountId: num(r.user_account_id),
    subscriptionId: optional(r.subscription_id),
    walletId: optional(r.wallet_id),
    chargeInstanceId: optional(r.charge_instance_id),
    offerTemplateId: optional(r.offer_template_id),
    quantity: r.quantity as string,
    freeQuantity: r.free_quantity as string,
    amountWithoutTax: r.amount_without_tax as string,
    amountWithTax: r.amount_with_tax as string,
    // Units are JSON numbers in the column, read back as their exact decimal text.
    counterPeriodValues: JSON.parse(r.counter_period_values as string, (_key, value, context?: { source?: string }) =>
      typeof value === 'number' ? context?.source : (value as unknown),
    ) as Record<string, string>,
    discountTaken: (typeof r.discount_taken === 'string' ? JSON.parse(r.discount_taken) : r.discount_taken) as Record<
      string,
      DiscountState
    >,
    usageDate,
    usageDay: usageDate && timeZoneDay(usageDate),
    param1: r.param1 as string | null,
    creditLimit: r.credit_limit as string | null,
    subscriptionDate: r.subscription_date as string | null,
    subscriptionCode: r.subscription_code as string | null,
    expiryDate: new Date(r.expiry_date as string),
  }
}

/** Locks one reservation (the first of the lock order). */
export async function lockReservation(
  db: Db,
  id: number,
  timeZoneDay: (d: Date) => string,
): Promise<ReservationRow | undefined> {
  const [found] = await preparedRows<Record<string, unknown>>(
    db,
    sql`select ${reservationColumns} from reservation where id = ${id} for update`,
  )
  return found && reservationOf(found, timeZoneDay)
}

/**
 * Claims OPEN reservations due at `now`, oldest expiry first: rows another transaction holds (a confirm, a cancel,
 * another instance's sweep) are skipped, not waited for.
 */
export async function claimDue(
  db: Db,
  now: Date,
  limit: number,
  timeZoneDay: (d: Date) => string,
): Promise<ReservationRow[]> {
  const found = await rows<Record<string, unknown>>(
    db,
    sql`select ${reservationColumns} from reservation
      where ${reservationMachine.whereTrigger(sql`status`, 'expire')} and expiry_date <= ${now.toISOString()}::timestamptz
      order by expiry_date, id limit ${limit} for update skip locked`,
  )
  return found.map((r) => reservationOf(r, timeZoneDay))
}

/** What a new reservation row holds: a reservation's columns but its id, status and usage day, and param2. */
export type NewReservation = Omit<ReservationRow, 'id' | 'status' | 'usageDay'> & {
  readonly param2: string | null
  readonly reservationDate: Date
}

/** The insert of a reservation row returning its id; none when `condition` is false. */
function reservationInsert(values: NewReservation, actor: string, condition: SQL = sql`true`): SQL {
  return sql`insert into reservation (reservation_type, seller_id, user_account_id, subscription_id, wallet_id,
        charge_instance_id, offer_template_id, quantity, free_quantity, amount_without_tax, amount_with_tax,
        counter_period_values, discount_taken, usage_date, param1, param2, credit_limit, subscription_date, subscription_code,
        reservation_date, expiry_date, creator)
      select ${values.type}::text, ${values.sellerId}::bigint, ${values.userAccountId}::bigint,
        ${values.subscriptionId}::bigint, ${values.walletId}::bigint, ${values.chargeInstanceId}::bigint,
        ${values.offerTemplateId}::bigint, ${values.quantity}::numeric, ${values.freeQuantity}::numeric,
        ${values.amountWithoutTax}::numeric, ${values.amountWithTax}::numeric,
        ${unitsJson(values.counterPeriodValues)}::jsonb, ${JSON.stringify(values.discountTaken)}::jsonb,
        ${values.usageDate?.toISOString() ?? null}::timestamptz,
        ${values.param1}::text, ${values.param2}::text, ${values.creditLimit}::numeric, ${values.subscriptionDate}::date,
        ${values.subscriptionCode}::text, ${values.reservationDate.toISOString()}::timestamptz,
        ${values.expiryDate.toISOString()}::timestamptz, ${actor}::text
      where ${condition}
      returning ${reportedColumns}`
}

/** What a reservation's events carry of it (`reservation.*`): the columns the writing statement returns. */
const reportedColumns = sql`id, reservation_type, status, quantity, consumed_quantity, amount_with_tax, seller_id`

/**
 * The CTEs of a reservation's event (`reservation.created`, `.confirmed`, `.cancelled`, `.expired`), read from the
 * CTE `source` of the writing statement (its returned row): built by the outbox, so a reservation written in one
 * statement reports in that statement. Nothing when `source` wrote no row.
 */
export interface PrepaidReport {
  readonly reservation: (type: string, source: SQL) => SQL
  /**
   * The CTEs (names prefixed `prefix`) of `wallet.balance_low` for wallet `walletId` when the ledger statement's
   * CTE `wallets` (the changed wallets' rows after the change, with `available_before`) shows its available amount
   * crossing its low-balance level downwards: from at or above the level to below it.
   */
  readonly lowBalance: (walletId: number, wallets: SQL, prefix: string) => SQL
}

/** The wallets whose available amount (balance − reserved) the entries lower: those that may cross their level. */
function lowered(entries: readonly LedgerEntry[]): number[] {
  const delta = new Map<number, Decimal>()
  for (const e of entries) {
    if (e.walletId === undefined) continue
    const change = money(e.balanceDelta).minus(e.reservedDelta ?? '0')
    delta.set(e.walletId, (delta.get(e.walletId) ?? money(0)).plus(change))
  }
  return [...delta].filter(([, d]) => d.isNegative()).map(([id]) => id)
}

/** The reservation as its events show it, from a row of `reportedColumns`. */
export const reservationEventObject = (source: SQL) =>
  sql`(select jsonb_build_object('id', x.id, 'type', x.reservation_type, 'status', x.status, 'quantity', x.quantity,
    'consumedQuantity', x.consumed_quantity, 'amountWithTax', x.amount_with_tax) from ${source} x)`

export async function insertReservation(
  db: Db,
  values: NewReservation,
  actor: string,
  holds: readonly LedgerEntry[],
  report: PrepaidReport,
): Promise<number> {
  const insert = reservationInsert(values, actor)
  // One statement inserts the reservation, writes and applies its ledger rows (wallets and counter periods locked by
  // the caller) and reports it.
  const created = await one<{ id: unknown }>(
    db,
    holds.length === 0
      ? sql`with created as (${insert}), ${report.reservation('reservation.created', sql`created`)} select id from created`
      : sql`with created as (${insert}), ${ledgerQueries(holds, actor, report, sql`(select id from created)`)},
          ${report.reservation('reservation.created', sql`created`)}
          select (select id from created) as id, (select count(*) from ledger) as entries`,
  )
  return num(created!.id)
}

/** What `reserveHeld` found under its locks, and the reservation it wrote when the figures allowed it. */
export type HeldOutcome =
  | {
      readonly outcome: 'RESERVED'
      readonly id: number
      /** The wallet's available balance before the hold, and the periods' units before the take, under the locks. */
      readonly available: string | null
      readonly freeBefore: string
    }
  /** A counter period has fewer units left than the rating took: read again and rate again. */
  | { readonly outcome: 'COUNTER_MOVED' }
  /** The wallet's available balance (none without a wallet) is below the amount to hold. Nothing was written. */
  | { readonly outcome: 'INSUFFICIENT'; readonly available: string | null }

/**
 * A usage reservation in one statement, outside any transaction: locks the counter periods it takes units from (in
 * id order), then the wallet, and checks under those locks that each period still has the units taken and the
 * wallet's available balance (balance − reserved) covers the amount; only then inserts the reservation and writes
 * and applies its holds. The rating was done from figures read without a lock (`usageContext`): a period that has
 * since lost units answers COUNTER_MOVED and nothing is written. One that has gained units (a release meanwhile) is
 * still right: the reservation is then as if made before the release, and the periods' new values start from the
 * values read under the locks (see `ledgerQueries`). Locks follow the order every balance change takes (reservation,
 * counter periods, wallets): each lock's query reads the previous lock's rows, so PostgreSQL takes them in that order.
 */
export async function reserveHeld(
  db: Db,
  reservation: NewReservation,
  takes: readonly { periodId: number; units: string }[],
  holds: readonly LedgerEntry[],
  actor: string,
  report: PrepaidReport,
): Promise<HeldOutcome> {
  const amount = reservation.amountWithTax
  const [found] = await preparedRows<{
    counters_ok: boolean
    available: string | null
    free_before: string
    id: unknown
  }>(
    db,
    sql`with takes as (
        ${
          takes.length === 0
            ? sql`select null::bigint as id, null::numeric as units where false`
            : sql`select * from (values ${sql.join(
                takes.map((t) => sql`(${t.periodId}::bigint, ${t.units}::numeric)`),
                sql`, `,
              )}) as t(id, units)`
        }
      ), locked_periods as materialized (
        select p.id, p.value from counter_period p where ${idIn(
          sql`p.id`,
          takes.map((t) => t.periodId),
        )}
        order by p.id for update
      ), locked_wallet as materialized (
        ${lockedWalletsSelect(sql`w.id = ${reservation.walletId}::bigint and (select count(*) from locked_periods) >= 0`, false)}
      ), checked as materialized (
        select (select count(*) from locked_periods p join takes t on t.id = p.id where p.value >= t.units)
            = (select count(*) from takes) as counters_ok,
          (select available from locked_wallet) as available,
          (select coalesce(sum(value), 0) from locked_periods) as free_before
      ), created as (
        ${reservationInsert(
          reservation,
          actor,
          sql`(select counters_ok and (${amount}::numeric <= 0 or coalesce(available >= ${amount}::numeric, false))
            from checked)`,
        )}
      ), ${ledgerQueries(
        holds,
        actor,
        report,
        sql`(select id from created)`,
        sql`exists (select 1 from created)`,
        sql`locked_periods`,
      )}, ${report.reservation('reservation.created', sql`created`)}
      select checked.counters_ok, checked.available::text as available, checked.free_before::text as free_before,
        (select id from created) as id,
        (select count(*) from ledger) as entries
      from checked`,
  )
  if (found!.id !== null) {
    return { outcome: 'RESERVED', id: num(found!.id), available: found!.available, freeBefore: found!.free_before }
  }
  if (!found!.counters_ok) return { outcome: 'COUNTER_MOVED' }
  return { outcome: 'INSUFFICIENT', available: found!.available }
}

/** Closes a reservation (locked by the caller) in its final status, if the machine allows that move from its status. */
export async function closeReservation(
  db: Db,
  id: number,
  close: { status: 'CONFIRMED' | 'CANCELLED' | 'EXPIRED'; consumedQuantity: string | null; at: Date },
  actor: string,
  report: PrepaidReport,
): Promise<void> {
  await preparedRows(
    db,
    sql`with closed as (
        update reservation set status = ${close.status},
          consumed_quantity = ${close.consumedQuantity}::numeric, closed_date = ${close.at.toISOString()}::timestamptz,
          updated = now(), updater = ${actor}
        where id = ${id} and ${reservationMachine.whereTrigger(sql`status`, CLOSING_TRIGGER[close.status])}
        returning ${reportedColumns}
      ), ${report.reservation(`reservation.${close.status.toLowerCase()}`, sql`closed`)}
      select id from closed`,
  )
}

/**
 * A reservation as last committed, with its seller's code, without a lock: what a confirm or cancel decides from
 * before `closeHeld` writes it (a status other than OPEN is final, so one read here stays true). Read with the other
 * confirms' and cancels' of the same turn of the event loop: `db` is the pool.
 */
export async function reservationById(
  db: Db,
  id: number,
  timeZoneDay: (d: Date) => string,
): Promise<(ReservationRow & { readonly sellerCode: string }) | undefined> {
  const found = await reservationRowSoon(db, id)
  return found && { ...reservationOf(found, timeZoneDay), sellerCode: found.seller_code as string }
}

/** Reservations by id with their seller's code, each id's row by its position (`reservationById`). */
async function reservationRows(db: Db, ids: readonly number[]): Promise<(Record<string, unknown> | undefined)[]> {
  const found = await preparedRows<Record<string, unknown>>(
    db,
    sql`select ${reservationColumns}, ${sellerCodeOf(sql`reservation.seller_id`)} as seller_code
      from reservation where ${idIn(sql`id`, ids)}`,
  )
  const byId = new Map(found.map((r) => [num(r.id), r]))
  return ids.map((id) => byId.get(id))
}

/** A reservation's row, read with the other confirms' and cancels' of the same turn of the event loop. */
const reservationRowSoon = coalescedReads(reservationRows)

/**
 * Closes a reservation and writes and applies its ledger rows in one statement, outside any transaction, if it is
 * still OPEN and not past its expiry date at `now`, and its wallet's available balance covers `beyondHold` (what a
 * confirm debits beyond the reservation's own hold: its wallet never goes below zero); otherwise writes nothing and
 * answers false. Locks in the order every balance change takes them: the reservation, then the counter periods of
 * the entries in id order, then their wallet — each lock's query reads the previous one's rows, so PostgreSQL takes
 * them in that order — and decides from the wallet's figures as read under its lock. The entries must not depend on
 * the counters' figures (they give back or consume what the reservation holds). `operations`, the wallet
 * operations of a confirm's consumed part, are written with them. Its updates may start from the figures of its
 * snapshot (see `ledgerQueries`): any committed state in which the reservation is OPEN still holds what it gives
 * back, so those stay within the tables' check constraints too.
 */
export async function closeHeld(
  db: Db,
  id: number,
  close: {
    status: 'CONFIRMED' | 'CANCELLED'
    consumedQuantity: string | null
    at: Date
    now: Date
    beyondHold?: { walletId: number; amount: string }
  },
  entries: readonly LedgerEntry[],
  actor: string,
  report: PrepaidReport,
  operations: readonly UsageOperation[] = [],
): Promise<boolean> {
  const applied = sql`(select count(*) from locked_wallets) >= 0 and exists (select 1 from closed)`
  const periodIds = [...new Set(entries.flatMap((e) => (e.counterPeriodId === undefined ? [] : [e.counterPeriodId])))]
  const walletIds = [...new Set(entries.flatMap((e) => (e.walletId === undefined ? [] : [e.walletId])))]
  const beyond = close.beyondHold
  const covered =
    beyond === undefined
      ? sql`true`
      : sql`coalesce((select available from locked_wallets where id = ${beyond.walletId}::bigint)
          >= ${beyond.amount}::numeric, false)`
  const [found] = await preparedRows<{ id: unknown }>(
    db,
    sql`with locked_reservation as materialized (
        select id from reservation
        where id = ${id} and ${reservationMachine.whereTrigger(sql`status`, CLOSING_TRIGGER[close.status])}
          and expiry_date > ${close.now.toISOString()}::timestamptz for update
      ), locked_periods as materialized (
        select p.id from counter_period p
        where ${idIn(sql`p.id`, periodIds)} and exists (select 1 from locked_reservation) order by p.id for update
      ), locked_wallets as materialized (
        ${lockedWalletsSelect(sql`${idIn(sql`w.id`, walletIds)} and (select count(*) from locked_periods) >= 0`, true)}
      ), closed as (
        update reservation set status = ${close.status}, consumed_quantity = ${close.consumedQuantity}::numeric,
          closed_date = ${close.at.toISOString()}::timestamptz, updated = now(), updater = ${actor}
        where id = (select id from locked_reservation) and ${covered}
        returning ${reportedColumns}
      ), ${ledgerQueries(entries, actor, report, sql`(select id from closed)`, applied)}${
        operations.length === 0 ? sql`` : sql`, operations as (${usageOperationsInsert(operations, applied)})`
      }, ${report.reservation(`reservation.${close.status.toLowerCase()}`, sql`closed`)}
      select (select id from closed) as id, (select count(*) from ledger) as entries`,
  )
  return found!.id !== null
}

export async function updateCreditLimit(db: Db, id: number, creditLimit: string, actor: string): Promise<void> {
  await db.execute(sql`update reservation set credit_limit = ${creditLimit}::numeric, updated = now(), updater = ${actor}
    where id = ${id}`)
}

/**
 * What a user account already owes this month: its OPEN wallet operations dated in [monthStart, monthEnd), plus what
 * its other OPEN offer reservations hold.
 */
export async function openAmounts(
  db: Db,
  userAccountId: number,
  month: { start: string; end: string },
  exceptReservation: number | null,
): Promise<string> {
  const found = await one<{ total: string }>(
    db,
    sql`select (
        coalesce(${openOperationsTotal(userAccountId, month)}, 0)
        + coalesce((select sum(r.amount_with_tax) from reservation r where r.user_account_id = ${userAccountId}
            and r.reservation_type = 'OFFER' and r.status = 'OPEN' and r.id <> ${exceptReservation ?? 0}), 0)
      )::text as total`,
  )
  return found?.total ?? '0'
}

/** A reservation as the offer reservation routes answer it (decimals as text). */
export interface ReservationViewRow {
  reservationId: number | string
  type: string
  status: string
  sellerCode: string
  userAccountCode: string
  offerCode: string | null
  subscriptionCode: string | null
  subscriptionDate: string | null
  creditLimit: string | null
  amountWithoutTax: string
  amountWithTax: string
  reservationDate: string
  expiryDate: string
}

export async function reservationView(db: Db, id: number): Promise<ReservationViewRow | undefined> {
  return one<ReservationViewRow>(
    db,
    sql`select r.id as "reservationId", r.reservation_type as type, r.status, se.code as "sellerCode",
        ua.code as "userAccountCode", ot.code as "offerCode", r.subscription_code as "subscriptionCode",
        to_char(r.subscription_date, 'YYYY-MM-DD') as "subscriptionDate", r.credit_limit::text as "creditLimit",
        r.amount_without_tax::text as "amountWithoutTax", r.amount_with_tax::text as "amountWithTax",
        ${instantText(sql`r.reservation_date`)} as "reservationDate", ${instantText(sql`r.expiry_date`)} as "expiryDate"
      from reservation r ${sellerAndUserAccountJoins({ sellerId: sql`r.seller_id`, userAccountId: sql`r.user_account_id` })}
      ${offerTemplateJoin(sql`r.offer_template_id`, true)} where r.id = ${id}`,
  )
}

/** The reservation report of an outbox: the event of a reservation written by the statement's CTE `source`. */
export function prepaidReport(outbox: Outbox): PrepaidReport {
  return {
    reservation: (type, source) =>
      outbox.ctes({
        type,
        aggregateType: 'reservation',
        aggregateId: sql`(select id from ${source})`,
        object: reservationEventObject(source),
        sellerId: sql`(select seller_id from ${source})`,
        when: sql`exists (select 1 from ${source})`,
      }),
    lowBalance: (walletId, wallets, prefix) => {
      const row = sql`(select * from ${wallets} where id = ${walletId}::bigint)`
      return outbox.ctes(
        {
          type: 'wallet.balance_low',
          aggregateType: 'wallet',
          aggregateId: sql`${walletId}::bigint`,
          // The wallet as its event shows it (see the wallet service's eventObject): decimals as JSON numbers.
          object: sql`(select jsonb_build_object('userAccount', ua.code, 'code', x.code, 'walletType', x.wallet_type,
              'currency', cur.code, 'balance', x.balance, 'reserved', x.reserved, 'available', x.balance - x.reserved,
              'lowBalanceLevel', x.low_balance_level)
            from ${row} x ${userAccountJoins(sql`x.user_account_id`)})`,
          previous: sql`(select jsonb_build_object('available', x.available_before) from ${row} x)`,
          sellerId: sql`(select ${sellerOfUserAccount(sql`x.user_account_id`)} from ${row} x)`,
          when: sql`exists (select 1 from ${row} x where x.low_balance_level is not null
            and x.available_before >= x.low_balance_level and x.balance - x.reserved < x.low_balance_level)`,
        },
        prefix,
      )
    },
  }
}
