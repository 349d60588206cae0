import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import type { ScheduleExpression } from '../../kernel/jobs/schedule-expression.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import type { AutoAction, ProcessType, Repeats, ScheduleState, ScheduleStatus } from './billing-runs.model.ts'
import { scheduleMachine } from './billing-run-schedule.machine.ts'

/** An instant as written on the wire: ISO-8601 UTC to the second, computed by PostgreSQL. */
const iso = instantText
const param = (date: Date | null) => sql`${date?.toISOString() ?? null}::timestamptz`

const auditJson = (alias: string) => {
  const a = sql.raw(alias)
  return sql`jsonb_build_object('created', ${iso(sql`${a}.created`)}, 'updated', ${iso(sql`${a}.updated`)},
    'creator', ${a}.creator, 'updater', ${a}.updater)`
}

export interface Auditable {
  created: string
  updated: string | null
  creator: string | null
  updater: string | null
}

/** A schedule as read back: every input field, status, timer and the runs it created. */
export interface ScheduleView {
  id: number
  code: string
  name: string
  repeats: Repeats
  cron: ScheduleExpression | null
  startDate: string | null
  endDate: string | null
  billingCycleCodes: string[]
  processType: ProcessType
  lastTransactionDate: string | null
  invoiceDate: string | null
  rejectAutoAction: AutoAction | null
  suspectAutoAction: AutoAction | null
  generateAO: boolean
  computeDatesAtValidation: boolean
  active: boolean
  status: ScheduleStatus
  nextFireDate: string | null
  lastFireDate: string | null
  createdBillingRuns: number[]
  auditable: Auditable
}

const scheduleJson = sql`jsonb_build_object(
  'id', s.id, 'code', s.code, 'name', s.name, 'repeats', s.repeats, 'cron', s.cron,
  'startDate', ${iso(sql`s.start_date`)}, 'endDate', ${iso(sql`s.end_date`)},
  'billingCycleCodes', coalesce((select jsonb_agg(c.code order by l.position) from billing_run_schedule_cycle l
    join billing_cycle c on c.id = l.billing_cycle_id where l.schedule_id = s.id), '[]'::jsonb),
  'processType', s.process_type,
  'lastTransactionDate', ${iso(sql`s.last_transaction_date`)}, 'invoiceDate', ${iso(sql`s.invoice_date`)},
  'rejectAutoAction', s.reject_auto_action, 'suspectAutoAction', s.suspect_auto_action,
  'generateAO', s.generate_ao, 'computeDatesAtValidation', s.compute_dates_at_validation,
  'active', s.status = 'ACTIVE', 'status', s.status,
  'nextFireDate', ${iso(sql`s.next_fire_date`)}, 'lastFireDate', ${iso(sql`s.last_fire_date`)},
  'createdBillingRuns', coalesce((select jsonb_agg(r.id order by r.id) from billing_run r
    join billing_run_schedule_firing f on f.id = r.firing_id where f.schedule_id = s.id), '[]'::jsonb),
  'auditable', ${auditJson('s')})`

async function selectSchedules(db: Db, where: SQL, tail: SQL = sql``): Promise<ScheduleView[]> {
  const found = await rows<{ j: string }>(
    db,
    sql`select (${scheduleJson})::text as j from billing_run_schedule s where ${where}${tail}`,
  )
  return found.map((row) => JSON.parse(row.j) as ScheduleView)
}

const date = (value: string | null): Date | null => (value === null ? null : new Date(value))

/** The stored state behind a view, with instants as dates. */
export function stateOf(view: ScheduleView): ScheduleState {
  return {
    code: view.code,
    name: view.name,
    repeats: view.repeats,
    cron: view.cron,
    startDate: date(view.startDate),
    endDate: date(view.endDate),
    billingCycleCodes: view.billingCycleCodes,
    processType: view.processType,
    lastTransactionDate: date(view.lastTransactionDate),
    invoiceDate: date(view.invoiceDate),
    rejectAutoAction: view.rejectAutoAction,
    suspectAutoAction: view.suspectAutoAction,
    generateAO: view.generateAO,
    computeDatesAtValidation: view.computeDatesAtValidation,
    status: view.status,
    nextFireDate: date(view.nextFireDate),
  }
}

/** The database clock: every instance compares timers against the same time. */
export async function databaseNow(db: Db): Promise<Date> {
  const found = await one<{ now: string }>(
    db,
    sql`select to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as now`,
  )
  return new Date(found!.now)
}

export async function findSchedule(db: Db, code: string): Promise<ScheduleView | undefined> {
  return (await selectSchedules(db, sql`s.code = ${code}`))[0]
}

export async function findScheduleById(db: Db, id: number): Promise<ScheduleView | undefined> {
  return (await selectSchedules(db, sql`s.id = ${id}`))[0]
}

/** Locks the schedule row: concurrent updates, actions and the timer's claim of it wait for this transaction. */
export async function lockSchedule(db: Db, code: string): Promise<ScheduleView | undefined> {
  const locked = await one<{ id: string | number }>(
    db,
    sql`select id from billing_run_schedule where code = ${code} for update`,
  )
  return locked ? findScheduleById(db, Number(locked.id)) : undefined
}

/** Schedules by code; all of them when no limit is given. */
export async function listSchedules(db: Db, page: { offset: number; limit?: number | undefined }) {
  const limit = page.limit === undefined ? sql`all` : sql`${page.limit}`
  const data = await selectSchedules(db, sql`true`, sql` order by s.code, s.id limit ${limit} offset ${page.offset}`)
  const total = await one<{ n: string }>(db, sql`select count(*)::text as n from billing_run_schedule`)
  return { total: Number(total?.n ?? 0), data }
}

/** Ids of the billing cycles named, by code; unknown codes are absent from the map. */
export async function billingCycleIds(db: Db, codes: readonly string[]): Promise<Map<string, number>> {
  const found = await rows<{ id: string | number; code: string }>(
    db,
    sql`select id, code from billing_cycle where code = any(${textArray(codes)})`,
  )
  return new Map(found.map((row) => [row.code, Number(row.id)]))
}

function scheduleColumns(state: ScheduleState): [string, SQL][] {
  return [
    ['repeats', sql`${state.repeats}`],
    ['cron', sql`${state.cron ? JSON.stringify(state.cron) : null}::jsonb`],
    ['start_date', param(state.startDate)],
    ['end_date', param(state.endDate)],
    ['process_type', sql`${state.processType}`],
    ['last_transaction_date', param(state.lastTransactionDate)],
    ['invoice_date', param(state.invoiceDate)],
    ['reject_auto_action', sql`${state.rejectAutoAction}`],
    ['suspect_auto_action', sql`${state.suspectAutoAction}`],
    ['generate_ao', sql`${state.generateAO}`],
    ['compute_dates_at_validation', sql`${state.computeDatesAtValidation}`],
    ['status', sql`${state.status}`],
    ['next_fire_date', param(state.nextFireDate)],
  ]
}

export async function insertSchedule(db: Db, state: ScheduleState, creator: string): Promise<number> {
  const columns: [string, SQL][] = [
    ['code', sql`${state.code}`],
    ['name', sql`${state.name}`],
    ...scheduleColumns(state),
    ['creator', sql`${creator}`],
  ]
  const inserted = await one<{ id: string | number }>(
    db,
    sql`insert into billing_run_schedule (${sql.join(
      columns.map(([c]) => sql.identifier(c)),
      sql`, `,
    )}) values (${sql.join(
      columns.map(([, v]) => v),
      sql`, `,
    )}) returning id`,
  )
  return Number(inserted!.id)
}

export async function updateSchedule(db: Db, id: number, state: ScheduleState, updater: string): Promise<void> {
  const sets = [
    ...scheduleColumns(state),
    ['updated', sql`now()`] as [string, SQL],
    ['updater', sql`${updater}`] as [string, SQL],
  ]
  await db.execute(
    sql`update billing_run_schedule set ${sql.join(
      sets.map(([c, v]) => sql`${sql.identifier(c)} = ${v}`),
      sql`, `,
    )} where id = ${id}`,
  )
}

export async function setScheduleCycles(db: Db, scheduleId: number, cycleIds: readonly number[]): Promise<void> {
  await db.execute(sql`delete from billing_run_schedule_cycle where schedule_id = ${scheduleId}`)
  const values = cycleIds.map((cycleId, position) => sql`(${scheduleId}, ${cycleId}, ${position})`)
  await db.execute(
    sql`insert into billing_run_schedule_cycle (schedule_id, billing_cycle_id, position) values ${sql.join(values, sql`, `)}`,
  )
}

export async function deleteSchedule(db: Db, code: string): Promise<boolean> {
  const deleted = await rows<{ id: unknown }>(
    db,
    sql`delete from billing_run_schedule where code = ${code} returning id`,
  )
  return deleted.length > 0
}

export async function activeScheduleCodes(db: Db): Promise<string[]> {
  const found = await rows<{ code: string }>(
    db,
    sql`select code from billing_run_schedule where ${scheduleMachine.whereTrigger(sql`status`, 'fire')} order by id`,
  )
  return found.map((r) => r.code)
}

/** Status and timer only: what pause, resume and the timer change. */
export async function setScheduleTimer(
  db: Db,
  id: number,
  change: { status: ScheduleStatus; next: Date | null; lastFire?: Date; updater?: string },
): Promise<void> {
  const sets = [sql`status = ${change.status}`, sql`next_fire_date = ${param(change.next)}`]
  if (change.lastFire) sets.push(sql`last_fire_date = ${param(change.lastFire)}`)
  if (change.updater) sets.push(sql`updated = now()`, sql`updater = ${change.updater}`)
  await db.execute(sql`update billing_run_schedule set ${sql.join(sets, sql`, `)} where id = ${id}`)
}

export async function setLastFire(db: Db, id: number, fireTime: Date): Promise<void> {
  await db.execute(sql`update billing_run_schedule set last_fire_date = ${param(fireTime)} where id = ${id}`)
}

/** Active schedules whose timer is due by the database clock, oldest first. */
export async function dueSchedules(db: Db, limit: number): Promise<{ id: number; due: string }[]> {
  const found = await rows<{ id: string | number; due: string }>(
    db,
    sql`select id, to_char(next_fire_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as due
      from billing_run_schedule where ${scheduleMachine.whereTrigger(sql`status`, 'fire')} and next_fire_date <= now()
      order by next_fire_date, id limit ${limit}`,
  )
  return found.map((row) => ({ id: Number(row.id), due: row.due }))
}

/**
 * Claims a due timer: the row is locked only if it is still active and still due at the same time. Another
 * instance holding it (skip locked) or having advanced it (changed due time) makes this return undefined.
 */
export async function claimDueSchedule(db: Db, id: number, due: string): Promise<ScheduleView | undefined> {
  const claimed = await one<{ id: unknown }>(
    db,
    sql`select id from billing_run_schedule
      where id = ${id} and ${scheduleMachine.whereTrigger(sql`status`, 'fire')} and next_fire_date = ${due}::timestamptz
      for update skip locked`,
  )
  return claimed ? findScheduleById(db, id) : undefined
}

/** Recurring schedules paused past their end date are COMPLETED: they can never fire again. */
export async function completeEndedSchedules(db: Db): Promise<number> {
  const done = await rows<{ id: unknown }>(
    db,
    sql`update billing_run_schedule set status = ${scheduleMachine.next('PAUSED', 'lapse')}, next_fire_date = null
      where ${scheduleMachine.whereTrigger(sql`status`, 'lapse')} and repeats <> 'NONE' and end_date is not null and end_date < now() returning id`,
  )
  return done.length
}

/**
 * The record of one firing. A timer firing is unique per (schedule, fire time): undefined means that due time
 * was already fired, and the caller must not create bill runs for it.
 */
export async function insertFiring(
  db: Db,
  firing: { scheduleId: number; fireTime: Date; trigger: 'TIMER' | 'RUN_NOW'; firedBy: string },
): Promise<number | undefined> {
  const inserted = await rows<{ id: string | number }>(
    db,
    sql`insert into billing_run_schedule_firing (schedule_id, fire_time, trigger, fired_by)
      values (${firing.scheduleId}, ${param(firing.fireTime)}, ${firing.trigger}, ${firing.firedBy})
      on conflict do nothing returning id`,
  )
  return inserted[0] === undefined ? undefined : Number(inserted[0].id)
}

/** What a bill run inherits from its billing cycle: the date delays and the aggregation rules. */
export interface CycleRules {
  id: number
  code: string
  invoiceDateDelay: number
  lastTransactionDateDelay: number
  ignoreOrders: boolean
  ignoreSubscriptions: boolean
  dateAggregation: string
  discountAggregation: boolean
  disableAggregation: boolean
}

const cycleRulesColumns = sql`c.id, c.code, c.invoice_date_delay as "invoiceDateDelay",
  c.last_transaction_date_delay as "lastTransactionDateDelay", c.ignore_orders as "ignoreOrders",
  c.ignore_subscriptions as "ignoreSubscriptions", c.date_aggregation as "dateAggregation",
  c.discount_aggregation as "discountAggregation", c.disable_aggregation as "disableAggregation"`

const cycleRulesOf = (row: Omit<CycleRules, 'id'> & { id: string | number }): CycleRules => ({
  ...row,
  id: Number(row.id),
})

export async function scheduleCycleRules(db: Db, scheduleId: number): Promise<CycleRules[]> {
  const found = await rows<Omit<CycleRules, 'id'> & { id: string | number }>(
    db,
    sql`select ${cycleRulesColumns} from billing_run_schedule_cycle l join billing_cycle c on c.id = l.billing_cycle_id
      where l.schedule_id = ${scheduleId} order by l.position`,
  )
  return found.map(cycleRulesOf)
}

/** A bill run to create, in status NEW. */
export interface NewBillRun {
  description: string | null
  billingCycleId: number
  processType: ProcessType
  lastTransactionDate: Date
  invoiceDate: Date
  rejectAutoAction: AutoAction | null
  suspectAutoAction: AutoAction | null
  generateAO: boolean
  computeDatesAtValidation: boolean
  ignoreOrders: boolean
  ignoreSubscriptions: boolean
  dateAggregation: string
  discountAggregation: boolean
  disableAggregation: boolean
  scheduleCode: string | null
  firingId: number | null
  creator: string
  /** A run created by MOVE: the run whose invoices it takes. */
  originBillRunId?: number | null
}

/**
 * Where the bill runs a firing creates go: the invoicing module's chain, which inserts them and starts their lines
 * step in the firing's transaction, and shows them as the API writes bill runs.
 */
export interface BillRunStarter {
  create(tx: Db, runs: readonly NewBillRun[]): Promise<number[]>
  views(tx: Db, ids: readonly number[]): Promise<unknown[]>
}
