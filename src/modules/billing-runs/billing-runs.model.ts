import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import {
  compileSchedule,
  ScheduleExpressionError,
  type ScheduleExpression,
} from '../../kernel/jobs/schedule-expression.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'
import { parseBusinessDate } from '../../kernel/time-zone.ts'

import { AUTO_ACTIONS, DATE_AGGREGATIONS, PROCESS_TYPES, REPEATS } from './billing-run-values.ts'
export { AUTO_ACTIONS, DATE_AGGREGATIONS, PROCESS_TYPES, REPEATS }

export type Repeats = (typeof REPEATS)[number]
export type ProcessType = (typeof PROCESS_TYPES)[number]
export type AutoAction = (typeof AUTO_ACTIONS)[number]
export type ScheduleStatus = 'ACTIVE' | 'PAUSED' | 'COMPLETED'

export const DEFAULT_PROCESS_TYPE: ProcessType = 'AUTOMATIC'

/** When a schedule fires: once at `startDate` (NONE), or by its cron within [startDate, endDate]. */
export interface ScheduleTiming {
  repeats: Repeats
  cron: ScheduleExpression | null
  startDate: Date | null
  endDate: Date | null
}

/** A schedule as stored, with business dates as instants. */
export interface ScheduleState extends ScheduleTiming {
  code: string
  name: string
  billingCycleCodes: string[]
  processType: ProcessType
  lastTransactionDate: Date | null
  invoiceDate: Date | null
  rejectAutoAction: AutoAction | null
  suspectAutoAction: AutoAction | null
  generateAO: boolean
  computeDatesAtValidation: boolean
  status: ScheduleStatus
  nextFireDate: Date | null
}

import type { ScheduleBody } from './billing-runs.schemas.ts'
export type { ScheduleBody }

export interface RuleContext {
  /** The database clock. */
  now: Date
  /** The tenant time zone: cron fields and business dates without an offset are read in it. */
  timeZone: string
}

const isOneOf = <T extends string>(values: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (values as readonly string[]).includes(value)

/** The cron compiled in the zone, or INVALID_CRON naming the bad field (`cron.hour`). */
export function compileCron(cron: ScheduleExpression, timeZone: string) {
  try {
    return compileSchedule(cron, timeZone)
  } catch (error) {
    if (error instanceof ScheduleExpressionError) {
      const field = `cron.${error.field}`
      throw new AppError('INVALID_CRON', `cron.${error.message}`, { details: [{ field, message: error.message }] })
    }
    throw error
  }
}

/**
 * The next firing strictly after `after`. One-time: `startDate` itself (possibly past: a paused one-time schedule
 * resumed late fires at once). Recurring: the first cron time at or after `startDate` and after `after`, or null
 * when none is left before `endDate`.
 */
export function nextFiring(timing: ScheduleTiming, timeZone: string, after: Date): Date | null {
  if (timing.repeats === 'NONE') return timing.startDate
  if (!timing.cron) return null
  const from = timing.startDate && timing.startDate > after ? new Date(timing.startDate.getTime() - 1) : after
  const next = compileCron(timing.cron, timeZone).next(from)
  if (next === null || (timing.endDate && next > timing.endDate)) return null
  return next
}

function checkName(name: string | null | undefined): string {
  const trimmed = name?.trim() ?? ''
  if (trimmed === '') {
    throw new AppError('MISSING_NAME', 'name is required: it becomes the schedule code', {
      details: [{ field: 'name', message: 'is required and must not be blank' }],
    })
  }
  if (trimmed.length > 255 || !new RegExp(CODE_PATTERN).test(trimmed)) {
    throw validationError([
      {
        field: 'name',
        message:
          'becomes the schedule code: expected 1-255 letters, digits, _, . or -, starting with a letter or digit',
      },
    ])
  }
  return trimmed
}

function checkBillingCycles(codes: string[] | null | undefined): string[] {
  if (!codes || codes.length === 0) {
    throw new AppError('MISSING_BILLING_CYCLES', 'billingCycleCodes must name at least one billing cycle', {
      details: [{ field: 'billingCycleCodes', message: 'is required and must not be empty' }],
    })
  }
  return codes
}

function checkRepeats(value: string | null | undefined): Repeats {
  if (isOneOf(REPEATS, value)) return value
  const shown = value === undefined || value === null ? 'missing' : `'${value}'`
  throw new AppError('INVALID_REPEATS', `repeats is ${shown}; expected one of ${REPEATS.join(', ')}`, {
    details: [{ field: 'repeats', message: `expected one of ${REPEATS.join(', ')}` }],
  })
}

function checkProcessType(value: string | null): ProcessType {
  if (isOneOf(PROCESS_TYPES, value)) return value
  throw new AppError(
    'INVALID_PROCESS_TYPE',
    `processType '${value ?? 'null'}' is not one of ${PROCESS_TYPES.join(', ')}`,
    { details: [{ field: 'processType', message: `expected one of ${PROCESS_TYPES.join(', ')}` }] },
  )
}

function checkAutoAction(field: string, value: string | null): AutoAction | null {
  if (value === null || isOneOf(AUTO_ACTIONS, value)) return value
  throw new AppError('INVALID_AUTO_ACTION', `${field} '${value}' is not one of ${AUTO_ACTIONS.join(', ')}`, {
    details: [{ field, message: `expected one of ${AUTO_ACTIONS.join(', ')}` }],
  })
}

/** Checks the options a bill run takes (shared by schedules and one-off runs). */
export function checkRunOptions(body: {
  processType?: string | null
  rejectAutoAction?: string | null
  suspectAutoAction?: string | null
}): { processType?: ProcessType; rejectAutoAction?: AutoAction | null; suspectAutoAction?: AutoAction | null } {
  return {
    ...(body.processType === undefined ? {} : { processType: checkProcessType(body.processType) }),
    ...(body.rejectAutoAction === undefined
      ? {}
      : { rejectAutoAction: checkAutoAction('rejectAutoAction', body.rejectAutoAction) }),
    ...(body.suspectAutoAction === undefined
      ? {}
      : { suspectAutoAction: checkAutoAction('suspectAutoAction', body.suspectAutoAction) }),
  }
}

const DATE_MESSAGE = 'expected an ISO-8601 date-time (2026-03-01T00:00:00Z) or date (2026-03-01)'

/** Parses the business dates sent; every malformed one is named. `null` clears, absent keeps. */
export function parseDates<K extends string>(
  body: Partial<Record<K, string | null>>,
  fields: readonly K[],
  timeZone: string,
): Partial<Record<K, Date | null>> {
  const parsed: Partial<Record<K, Date | null>> = {}
  const problems: ErrorDetail[] = []
  for (const field of fields) {
    const value = body[field]
    if (value === undefined) continue
    if (value === null) {
      parsed[field] = null
      continue
    }
    const date = parseBusinessDate(value, timeZone)
    if (date) parsed[field] = date
    else problems.push({ field, message: `'${value}': ${DATE_MESSAGE}` })
  }
  if (problems.length > 0) throw validationError(problems)
  return parsed
}

const TIMING_FIELDS = ['repeats', 'cron', 'startDate', 'endDate'] as const
const DATE_FIELDS = ['startDate', 'endDate', 'lastTransactionDate', 'invoiceDate'] as const

/**
 * The rules of a cadence: one-time needs a future `startDate` and no cron or end;
 * recurring needs a valid cron that still fires after now, within [startDate, endDate].
 */
function checkTiming(timing: ScheduleTiming, context: RuleContext): void {
  if (timing.repeats === 'NONE') {
    const problems: ErrorDetail[] = []
    if (timing.cron) problems.push({ field: 'cron', message: 'must be absent: a one-time schedule fires at startDate' })
    if (timing.endDate) problems.push({ field: 'endDate', message: 'applies to recurring schedules only' })
    if (!timing.startDate) problems.push({ field: 'startDate', message: 'is required when repeats is NONE' })
    else if (timing.startDate <= context.now)
      problems.push({ field: 'startDate', message: 'must be in the future: a one-time schedule fires at startDate' })
    if (problems.length > 0) throw validationError(problems)
    return
  }
  if (!timing.cron) {
    throw validationError([{ field: 'cron', message: `is required when repeats is ${timing.repeats}` }])
  }
  compileCron(timing.cron, context.timeZone)
  if (timing.startDate && timing.endDate && timing.endDate <= timing.startDate) {
    throw validationError([{ field: 'endDate', message: 'must be after startDate' }])
  }
  if (nextFiring(timing, context.timeZone, context.now) === null) {
    throw validationError([
      {
        field: timing.endDate ? 'endDate' : 'cron',
        message: timing.endDate
          ? 'the cron has no firing left before endDate'
          : 'the cron has no firing left (up to the year 2200)',
      },
    ])
  }
}

/** A new schedule from a create body; throws the error of the first rule broken. */
export function scheduleFromCreate(body: ScheduleBody, context: RuleContext): ScheduleState {
  const code = checkName(body.name)
  const billingCycleCodes = checkBillingCycles(body.billingCycleCodes)
  const repeats = checkRepeats(body.repeats)
  const options = checkRunOptions({ ...body, processType: body.processType ?? DEFAULT_PROCESS_TYPE })
  const dates = parseDates(body, DATE_FIELDS, context.timeZone)
  const timing: ScheduleTiming = {
    repeats,
    cron: (body.cron as ScheduleExpression | null | undefined) ?? null,
    startDate: dates.startDate ?? null,
    endDate: dates.endDate ?? null,
  }
  checkTiming(timing, context)
  const status: ScheduleStatus = body.active === false ? 'PAUSED' : 'ACTIVE'
  return {
    ...timing,
    code,
    name: code,
    billingCycleCodes,
    processType: options.processType ?? DEFAULT_PROCESS_TYPE,
    lastTransactionDate: dates.lastTransactionDate ?? null,
    invoiceDate: dates.invoiceDate ?? null,
    rejectAutoAction: options.rejectAutoAction ?? null,
    suspectAutoAction: options.suspectAutoAction ?? null,
    generateAO: body.generateAO ?? false,
    computeDatesAtValidation: body.computeDatesAtValidation ?? false,
    status,
    nextFireDate: status === 'ACTIVE' ? nextFiring(timing, context.timeZone, context.now) : null,
  }
}

/**
 * A partial update: only the fields sent change, then the whole is checked and the next firing recomputed from
 * now. `active` pauses or resumes. The cadence rules are checked when a timing field is sent.
 */
export function scheduleFromUpdate(current: ScheduleState, body: ScheduleBody, context: RuleContext): ScheduleState {
  if (current.status === 'COMPLETED') {
    throw new AppError('INVALID_STATE', `Schedule ${current.code} is COMPLETED and can no longer change`)
  }
  const billingCycleCodes =
    body.billingCycleCodes === undefined ? current.billingCycleCodes : checkBillingCycles(body.billingCycleCodes)
  const repeats = body.repeats === undefined ? current.repeats : checkRepeats(body.repeats)
  const options = checkRunOptions(body)
  const dates = parseDates(body, DATE_FIELDS, context.timeZone)
  const timing: ScheduleTiming = {
    repeats,
    cron: body.cron === undefined ? current.cron : body.cron,
    startDate: dates.startDate === undefined ? current.startDate : dates.startDate,
    endDate: dates.endDate === undefined ? current.endDate : dates.endDate,
  }
  if (TIMING_FIELDS.some((field) => body[field] !== undefined)) checkTiming(timing, context)
  let status: ScheduleStatus = current.status
  if (body.active !== undefined) status = body.active ? 'ACTIVE' : 'PAUSED'
  let nextFireDate = status === 'ACTIVE' ? nextFiring(timing, context.timeZone, context.now) : null
  if (status === 'ACTIVE' && nextFireDate === null) status = 'COMPLETED'
  if (status !== 'ACTIVE') nextFireDate = null
  return {
    ...current,
    ...timing,
    billingCycleCodes,
    processType: options.processType ?? current.processType,
    lastTransactionDate:
      dates.lastTransactionDate === undefined ? current.lastTransactionDate : dates.lastTransactionDate,
    invoiceDate: dates.invoiceDate === undefined ? current.invoiceDate : dates.invoiceDate,
    rejectAutoAction: options.rejectAutoAction === undefined ? current.rejectAutoAction : options.rejectAutoAction,
    suspectAutoAction: options.suspectAutoAction === undefined ? current.suspectAutoAction : options.suspectAutoAction,
    generateAO: body.generateAO ?? current.generateAO,
    computeDatesAtValidation: body.computeDatesAtValidation ?? current.computeDatesAtValidation,
    status,
    nextFireDate,
  }
}

/** What the timer does after firing a due time: the next firing from now, or COMPLETED when none is left. */
export function afterFiring(
  timing: ScheduleTiming,
  timeZone: string,
  now: Date,
): { status: ScheduleStatus; next: Date | null } {
  if (timing.repeats === 'NONE') return { status: 'COMPLETED', next: null }
  const next = nextFiring(timing, timeZone, now)
  return next ? { status: 'ACTIVE', next } : { status: 'COMPLETED', next: null }
}
