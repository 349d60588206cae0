import { describe, expect, it } from 'vitest'
import type { ScheduleExpression } from '../../kernel/jobs/schedule-expression.ts'
import {
  afterFiring,
  nextFiring,
  scheduleFromCreate,
  scheduleFromUpdate,
  type ScheduleBody,
  type ScheduleState,
  type ScheduleTiming,
} from './billing-runs.model.ts'

// Expected instants were computed independently with Python's zoneinfo, not with this code.
const iso = (date: Date | null) => date?.toISOString().replace('.000Z', 'Z') ?? null
const at = (value: string) => new Date(value)

/** The firing times a schedule would have after `after`, in order, as a timer advancing from firing to firing. */
function firings(timing: ScheduleTiming, timeZone: string, after: string, count: number): (string | null)[] {
  const times: (string | null)[] = []
  let from = at(after)
  for (let i = 0; i < count; i++) {
    const next = nextFiring(timing, timeZone, from)
    times.push(iso(next))
    if (!next) break
    from = next
  }
  return times
}

const recurring = (
  cron: ScheduleExpression,
  bounds: { startDate?: string; endDate?: string } = {},
): ScheduleTiming => ({
  repeats: 'MONTHLY',
  cron,
  startDate: bounds.startDate ? at(bounds.startDate) : null,
  endDate: bounds.endDate ? at(bounds.endDate) : null,
})

describe(nextFiring.name, () => {
  it.each<[string, ScheduleTiming, string, string, string[]]>([
    [
      'Last day of the month at 23:00, Paris (winter then summer time)',
      recurring({ dayOfMonth: 'Last', hour: '23' }),
      'Europe/Paris',
      '2026-01-15T00:00:00Z',
      ['2026-01-31T22:00:00Z', '2026-02-28T22:00:00Z', '2026-03-31T21:00:00Z', '2026-04-30T21:00:00Z'],
    ],
    [
      '-3: three days before the last day, 06:00 New York',
      recurring({ dayOfMonth: '-3', hour: '6' }),
      'America/New_York',
      '2026-01-01T00:00:00Z',
      ['2026-01-28T11:00:00Z', '2026-02-25T11:00:00Z', '2026-03-28T10:00:00Z'],
    ],
    [
      '2nd Tue at 09:30, Paris',
      recurring({ dayOfMonth: '2nd Tue', hour: '9', minute: '30' }),
      'Europe/Paris',
      '2026-01-01T00:00:00Z',
      ['2026-01-13T08:30:00Z', '2026-02-10T08:30:00Z', '2026-03-10T08:30:00Z', '2026-04-14T07:30:00Z'],
    ],
    [
      'a year range ends the schedule',
      recurring({ dayOfMonth: '1', month: 'Jan', year: '2027-2028' }),
      'UTC',
      '2026-06-01T00:00:00Z',
      ['2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z', null as unknown as string],
    ],
    [
      'daily 02:30 Paris skips the spring-forward day',
      recurring({ hour: '2', minute: '30' }),
      'Europe/Paris',
      '2026-03-27T12:00:00Z',
      ['2026-03-28T01:30:00Z', '2026-03-30T00:30:00Z'],
    ],
    [
      'daily 02:30 Paris fires once on the fall-back day',
      recurring({ hour: '2', minute: '30' }),
      'Europe/Paris',
      '2026-10-23T12:00:00Z',
      ['2026-10-24T00:30:00Z', '2026-10-25T00:30:00Z', '2026-10-26T01:30:00Z'],
    ],
    [
      'monthly on the 1st at midnight, Paris, across DST',
      recurring({ dayOfMonth: '1' }),
      'Europe/Paris',
      '2026-02-15T00:00:00Z',
      ['2026-02-28T23:00:00Z', '2026-03-31T22:00:00Z'],
    ],
    [
      '29 February fires in leap years only',
      recurring({ dayOfMonth: '29', month: 'Feb' }),
      'UTC',
      '2026-01-01T00:00:00Z',
      ['2028-02-29T00:00:00Z', '2032-02-29T00:00:00Z'],
    ],
    [
      'Last of February in a leap year is the 29th',
      recurring({ dayOfMonth: 'Last', month: '2' }),
      'UTC',
      '2027-03-01T00:00:00Z',
      ['2028-02-29T00:00:00Z', '2029-02-28T00:00:00Z'],
    ],
    [
      'a half-hour zone: midnight in Kolkata',
      recurring({}),
      'Asia/Kolkata',
      '2026-03-01T12:00:00Z',
      ['2026-03-01T18:30:00Z', '2026-03-02T18:30:00Z'],
    ],
    [
      'every second',
      recurring({ second: '*', minute: '*', hour: '*' }),
      'UTC',
      '2026-03-01T12:00:00.400Z',
      ['2026-03-01T12:00:01Z', '2026-03-01T12:00:02Z', '2026-03-01T12:00:03Z'],
    ],
    [
      'startDate bounds the first firing (inclusive)',
      recurring({}, { startDate: '2026-05-10T00:00:00Z' }),
      'UTC',
      '2026-03-01T00:00:00Z',
      ['2026-05-10T00:00:00Z', '2026-05-11T00:00:00Z'],
    ],
    [
      'startDate between two firings',
      recurring({}, { startDate: '2026-05-10T12:00:00Z' }),
      'UTC',
      '2026-03-01T00:00:00Z',
      ['2026-05-11T00:00:00Z'],
    ],
    [
      'endDate bounds the last firing (inclusive)',
      recurring({}, { endDate: '2026-03-03T00:00:00Z' }),
      'UTC',
      '2026-03-01T12:00:00Z',
      ['2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z', null as unknown as string],
    ],
  ])('%s', (_title, timing, timeZone, after, expected) => {
    expect(firings(timing, timeZone, after, expected.length)).toEqual(expected)
  })

  it('gives the start date of a one-time schedule, even when past (a late resume fires at once)', () => {
    const timing: ScheduleTiming = { repeats: 'NONE', cron: null, startDate: at('2026-05-01T10:00:00Z'), endDate: null }
    expect(iso(nextFiring(timing, 'UTC', at('2026-01-01T00:00:00Z')))).toBe('2026-05-01T10:00:00Z')
    expect(iso(nextFiring(timing, 'UTC', at('2026-06-01T00:00:00Z')))).toBe('2026-05-01T10:00:00Z')
  })
})

describe(afterFiring.name, () => {
  it('completes a one-time schedule and advances a recurring one from now, skipping missed firings', () => {
    const once: ScheduleTiming = { repeats: 'NONE', cron: null, startDate: at('2026-05-01T10:00:00Z'), endDate: null }
    expect(afterFiring(once, 'UTC', at('2026-05-01T10:00:00Z'))).toEqual({ status: 'COMPLETED', next: null })
    const hourly = recurring({ hour: '*' })
    expect(afterFiring(hourly, 'UTC', at('2026-05-01T17:20:00Z'))).toEqual({
      status: 'ACTIVE',
      next: at('2026-05-01T18:00:00Z'),
    })
    const ending = recurring({ hour: '*' }, { endDate: '2026-05-01T17:30:00Z' })
    expect(afterFiring(ending, 'UTC', at('2026-05-01T17:20:00Z'))).toEqual({ status: 'COMPLETED', next: null })
  })
})

const NOW = at('2026-03-10T12:00:00Z')
const context = { now: NOW, timeZone: 'Europe/Paris' }
const monthly: ScheduleBody = {
  name: 'MONTHLY',
  repeats: 'MONTHLY',
  cron: { dayOfMonth: '1' },
  billingCycleCodes: ['CYC'],
}

function errorOf(run: () => unknown): { code: string; details?: { field: string }[] } {
  try {
    run()
  } catch (error) {
    return error as { code: string; details?: { field: string }[] }
  }
  throw new Error('expected an error')
}

describe(scheduleFromCreate.name, () => {
  it('computes the first firing in the tenant zone and defaults the options', () => {
    const state = scheduleFromCreate(monthly, context)
    expect(state).toMatchObject({ code: 'MONTHLY', status: 'ACTIVE', processType: 'AUTOMATIC', generateAO: false })
    expect(iso(state.nextFireDate)).toBe('2026-03-31T22:00:00Z')
  })

  it('creates a schedule PAUSED, without a timer, when active is false', () => {
    const state = scheduleFromCreate({ ...monthly, active: false }, context)
    expect(state.status).toBe('PAUSED')
    expect(state.nextFireDate).toBeNull()
  })

  it('reads a one-time start date without offset in the tenant zone', () => {
    const state = scheduleFromCreate(
      { name: 'ONCE', repeats: 'NONE', startDate: '2026-04-01T08:00:00', billingCycleCodes: ['CYC'] },
      context,
    )
    expect(iso(state.nextFireDate)).toBe('2026-04-01T06:00:00Z')
  })

  it.each<[string, ScheduleBody, string, string?]>([
    ['blank name', { ...monthly, name: '  ' }, 'MISSING_NAME', 'name'],
    ['missing name', { ...monthly, name: undefined }, 'MISSING_NAME', 'name'],
    ['name that cannot be a code', { ...monthly, name: 'Monthly run' }, 'VALIDATION_FAILED', 'name'],
    ['empty cycles', { ...monthly, billingCycleCodes: [] }, 'MISSING_BILLING_CYCLES', 'billingCycleCodes'],
    ['missing cycles', { ...monthly, billingCycleCodes: undefined }, 'MISSING_BILLING_CYCLES', 'billingCycleCodes'],
    ['unknown repeats', { ...monthly, repeats: 'HOURLY' }, 'INVALID_REPEATS', 'repeats'],
    ['missing repeats', { ...monthly, repeats: undefined }, 'INVALID_REPEATS', 'repeats'],
    ['unknown process type', { ...monthly, processType: 'SOMETIMES' }, 'INVALID_PROCESS_TYPE', 'processType'],
    ['unknown reject action', { ...monthly, rejectAutoAction: 'IGNORE' }, 'INVALID_AUTO_ACTION', 'rejectAutoAction'],
    ['unknown suspect action', { ...monthly, suspectAutoAction: 'move' }, 'INVALID_AUTO_ACTION', 'suspectAutoAction'],
    ['bad cron hour', { ...monthly, cron: { hour: '25' } }, 'INVALID_CRON', 'cron.hour'],
    ['bad cron day', { ...monthly, cron: { dayOfMonth: '6th Mon' } }, 'INVALID_CRON', 'cron.dayOfMonth'],
    ['cron value not a string', { ...monthly, cron: { minute: 5 } }, 'INVALID_CRON', 'cron.minute'],
    ['recurring without cron', { ...monthly, cron: undefined }, 'VALIDATION_FAILED', 'cron'],
    ['one-time with cron', { ...monthly, repeats: 'NONE', startDate: '2026-04-01' }, 'VALIDATION_FAILED', 'cron'],
    [
      'one-time in the past',
      { ...monthly, repeats: 'NONE', cron: null, startDate: '2026-03-01' },
      'VALIDATION_FAILED',
      'startDate',
    ],
    ['one-time without start', { ...monthly, repeats: 'NONE', cron: null }, 'VALIDATION_FAILED', 'startDate'],
    ['malformed date', { ...monthly, startDate: '2026-02-30' }, 'VALIDATION_FAILED', 'startDate'],
    [
      'end before start',
      { ...monthly, startDate: '2026-05-01', endDate: '2026-04-01' },
      'VALIDATION_FAILED',
      'endDate',
    ],
    ['end already past', { ...monthly, endDate: '2026-03-01' }, 'VALIDATION_FAILED', 'endDate'],
    ['a cron that never fires again', { ...monthly, cron: { year: '2020' } }, 'VALIDATION_FAILED', 'cron'],
  ])('refuses %s', (_title, body, code, field) => {
    const error = errorOf(() => scheduleFromCreate(body, context))
    expect(error.code).toBe(code)
    if (field) expect(error.details?.map((d) => d.field)).toContain(field)
  })
})

describe(scheduleFromUpdate.name, () => {
  const current: ScheduleState = scheduleFromCreate(monthly, context)

  it('changes only the fields sent and recomputes the next firing from now', () => {
    const later = { ...context, now: at('2026-04-15T00:00:00Z') }
    const updated = scheduleFromUpdate(current, { cron: { dayOfMonth: '15', hour: '6' } }, later)
    expect(updated).toMatchObject({ code: 'MONTHLY', repeats: 'MONTHLY', billingCycleCodes: ['CYC'] })
    expect(iso(updated.nextFireDate)).toBe('2026-04-15T04:00:00Z')
    const cycles = scheduleFromUpdate(current, { billingCycleCodes: ['A', 'B'] }, later)
    expect(cycles.cron).toEqual({ dayOfMonth: '1' })
    expect(iso(cycles.nextFireDate)).toBe('2026-04-30T22:00:00Z')
  })

  it('pauses and resumes through active', () => {
    const paused = scheduleFromUpdate(current, { active: false }, context)
    expect(paused).toMatchObject({ status: 'PAUSED', nextFireDate: null })
    const resumed = scheduleFromUpdate(paused, { active: true }, context)
    expect(resumed.status).toBe('ACTIVE')
    expect(iso(resumed.nextFireDate)).toBe('2026-03-31T22:00:00Z')
  })

  it('refuses to change a COMPLETED schedule', () => {
    const error = errorOf(() =>
      scheduleFromUpdate({ ...current, status: 'COMPLETED' }, { processType: 'MANUAL' }, context),
    )
    expect(error.code).toBe('INVALID_STATE')
  })

  it('turns a recurring schedule into a one-time one only without its cron', () => {
    const keepCron = errorOf(() => scheduleFromUpdate(current, { repeats: 'NONE', startDate: '2026-04-01' }, context))
    expect(keepCron.details?.[0]?.field).toBe('cron')
    const once = scheduleFromUpdate(current, { repeats: 'NONE', cron: null, startDate: '2026-04-01' }, context)
    expect(iso(once.nextFireDate)).toBe('2026-03-31T22:00:00Z')
  })
})
