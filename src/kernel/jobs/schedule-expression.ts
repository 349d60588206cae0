// EJB ScheduleExpression in an IANA zone: our parser checks EJB syntax, croner's CronPattern expands second, minute,
// hour, month, dayOfWeek and year; dayOfMonth (`Last`, `-n`, `2nd Tue`, wrapping ranges) and the day/DST walk are ours,
// as croner lacks those and fires DST gaps late. DST: a wall-clock time in a spring-forward gap does not fire that day;
// a repeated (fall-back) time fires once, at its first occurrence.
import { CronPattern } from 'croner'
import { DAY_MS, instantsAt, isTimeZone, offsetAt, offsetChange, utcDate } from '../time-zone.ts'

export interface ScheduleExpression {
  second?: string
  minute?: string
  hour?: string
  dayOfMonth?: string
  month?: string
  dayOfWeek?: string
  year?: string
}

type Field = keyof ScheduleExpression

export const SCHEDULE_FIELDS: readonly Field[] = Object.freeze([
  'second',
  'minute',
  'hour',
  'dayOfMonth',
  'month',
  'dayOfWeek',
  'year',
] as const)

/** `message` is given without the field; the error's message is prefixed with it (`hour: '24' is not …`). */
export class ScheduleExpressionError extends Error {
  readonly field: Field

  constructor(field: Field, message: string) {
    super(`${field}: ${message}`)
    this.name = 'ScheduleExpressionError'
    this.field = field
  }
}

export interface CompiledSchedule {
  readonly expression: Required<ScheduleExpression>
  readonly timeZone: string
  /** The first fire time strictly after `after`, or null when there is none up to the end of year 2200. */
  next(after: Date): Date | null
}

const DEFAULTS: Required<ScheduleExpression> = {
  second: '0',
  minute: '0',
  hour: '0',
  dayOfMonth: '*',
  month: '*',
  dayOfWeek: '*',
  year: '*',
}

const LAST_YEAR = 2200
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

const EXPECTED: Record<Field, string> = {
  second: 'a second (0-59, ranges, lists, x/y increments)',
  minute: 'a minute (0-59, ranges, lists, x/y increments)',
  hour: 'an hour (0-23, ranges, lists, x/y increments)',
  dayOfMonth: 'a day of month (1-31, Last, -1..-7, 1st..5th or Last followed by Sun-Sat, ranges, lists)',
  month: 'a month (1-12, Jan-Dec, ranges, lists)',
  dayOfWeek: 'a day of week (0-7, Sun-Sat, ranges, lists)',
  year: 'a year (four digits, ranges, lists)',
}

type PlainField = Exclude<Field, 'dayOfMonth'>

interface PlainSpec {
  readonly min: number
  readonly max: number
  readonly digits: RegExp
  readonly names?: readonly string[]
  readonly nameBase?: number
}

const PLAIN: Record<PlainField, PlainSpec> = {
  second: { min: 0, max: 59, digits: /^\d{1,2}$/ },
  minute: { min: 0, max: 59, digits: /^\d{1,2}$/ },
  hour: { min: 0, max: 23, digits: /^\d{1,2}$/ },
  month: { min: 1, max: 12, digits: /^\d{1,2}$/, names: MONTH_NAMES, nameBase: 1 },
  dayOfWeek: { min: 0, max: 7, digits: /^\d$/, names: DAY_NAMES, nameBase: 0 },
  year: { min: 1000, max: 9999, digits: /^\d{4}$/ },
}

function invalid(field: Field, token: string): ScheduleExpressionError {
  return new ScheduleExpressionError(field, `'${token}' is not ${EXPECTED[field]}`)
}

/** Splits a non-wildcard, non-increment value into trimmed list items; lists hold only single values and ranges. */
function listItems(field: Field, value: string): string[] {
  const items = value.split(',').map((item) => item.trim())
  for (const item of items) {
    if (item === '') {
      throw new ScheduleExpressionError(field, `'${value}' has an empty list item; expected ${EXPECTED[field]}`)
    }
    if (items.length > 1 && (item.includes('*') || item.includes('/'))) {
      throw new ScheduleExpressionError(
        field,
        `'${value}': a list item must be a single value or a range, not '${item}'; expected ${EXPECTED[field]}`,
      )
    }
  }
  return items
}

function plainValue(field: PlainField, token: string): number {
  const spec = PLAIN[field]
  const lower = token.toLowerCase()
  let n: number
  if (spec.digits.test(lower)) n = Number(lower)
  else if (spec.names?.includes(lower)) n = spec.names.indexOf(lower) + (spec.nameBase ?? 0)
  else throw invalid(field, token)
  if (n < spec.min || n > spec.max) throw invalid(field, token)
  return n
}

/** Parses an EJB plain field into the croner syntax for the same set of values (wrapping ranges split in two). */
function toCronerSyntax(field: PlainField, value: string): string {
  const spec = PLAIN[field]
  if (value === '*') return '*'
  if (value.includes('/') && !value.includes(',')) {
    if (field !== 'second' && field !== 'minute' && field !== 'hour') {
      throw new ScheduleExpressionError(
        field,
        `'${value}': increments (x/y) are only allowed in second, minute and hour`,
      )
    }
    const match = /^(\*|\d{1,2})\s*\/\s*(\d{1,2})$/.exec(value)
    const step = Number(match?.[2])
    const start = match?.[1] === '*' ? 0 : Number(match?.[1])
    if (!match || !(start <= spec.max) || !(step >= 1 && step <= spec.max)) {
      throw new ScheduleExpressionError(
        field,
        `'${value}' is not an increment (x/y or */y, x ${spec.min}-${spec.max}, y 1-${spec.max})`,
      )
    }
    return `${start}-${spec.max}/${step}`
  }
  const parts: string[] = []
  for (const item of listItems(field, value)) {
    const ends = item.split('-').map((end) => end.trim())
    if (ends.length === 1) {
      parts.push(String(plainValue(field, item)))
      continue
    }
    if (ends.length !== 2 || ends[0] === '' || ends[1] === '') throw invalid(field, item)
    const from = plainValue(field, ends[0]!)
    const to = plainValue(field, ends[1]!)
    if (from <= to) parts.push(`${from}-${to}`)
    else if (field === 'year') {
      throw new ScheduleExpressionError(field, `'${item}' is a year range whose start is after its end`)
    } else parts.push(`${from}-${spec.max}`, `${spec.min}-${to}`)
  }
  return parts.join(',')
}

const CRONER_SLOT: Record<PlainField, number> = { second: 0, minute: 1, hour: 2, month: 4, dayOfWeek: 5, year: 6 }

/** The sorted values a plain field allows, expanded by croner (day of week 7 folded to 0, months 1-12). */
function expandPlain(field: PlainField, value: string): number[] {
  const cronerText = toCronerSyntax(field, value)
  const parts = ['0', '0', '0', '*', '*', '*', '*']
  parts[CRONER_SLOT[field]] = cronerText
  let pattern: CronPattern
  try {
    pattern = new CronPattern(parts.join(' '), undefined, { mode: '7-part' })
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    throw new ScheduleExpressionError(field, `'${value}' was rejected (${reason}); expected ${EXPECTED[field]}`)
  }
  const slots = pattern[field]
  const base = field === 'month' ? 1 : 0
  const values: number[] = []
  slots.forEach((slot, index) => {
    if (slot !== 0) values.push(index + base)
  })
  if (values.length === 0) throw invalid(field, value)
  return values
}

type DomValue =
  | { readonly kind: 'day'; readonly day: number }
  | { readonly kind: 'last' }
  | { readonly kind: 'beforeLast'; readonly days: number }
  | { readonly kind: 'nth'; readonly nth: number; readonly weekday: number } // nth 0 = Last

interface DomItem {
  readonly from: DomValue
  readonly to: DomValue
}

const ORDINALS = ['1st', '2nd', '3rd', '4th', '5th']
const NTH_WEEKDAY = /^(1st|2nd|3rd|4th|5th|last)\s+(sun|mon|tue|wed|thu|fri|sat)$/

function domValue(token: string): DomValue | null {
  const lower = token.toLowerCase()
  if (/^\d{1,2}$/.test(lower)) {
    const day = Number(lower)
    return day >= 1 && day <= 31 ? { kind: 'day', day } : null
  }
  if (lower === 'last') return { kind: 'last' }
  const before = /^-([1-7])$/.exec(lower)
  if (before) return { kind: 'beforeLast', days: Number(before[1]) }
  const nth = NTH_WEEKDAY.exec(lower)
  if (!nth) return null
  const ordinal = nth[1] === 'last' ? 0 : ORDINALS.indexOf(nth[1]!) + 1
  return { kind: 'nth', nth: ordinal, weekday: DAY_NAMES.indexOf(nth[2]!) }
}

/** `null` for `*`; otherwise the list items. A range's ends may themselves start with `-` (`-3-Last`). */
function parseDayOfMonth(value: string): DomItem[] | null {
  if (value === '*') return null
  if (value.includes('/') && !value.includes(',')) {
    throw new ScheduleExpressionError(
      'dayOfMonth',
      `'${value}': increments (x/y) are only allowed in second, minute and hour`,
    )
  }
  return listItems('dayOfMonth', value).map((item) => {
    const single = domValue(item)
    if (single) return { from: single, to: single }
    for (let i = item.indexOf('-', 1); i > 0; i = item.indexOf('-', i + 1)) {
      const from = domValue(item.slice(0, i).trim())
      const to = domValue(item.slice(i + 1).trim())
      if (from && to) return { from, to }
    }
    throw invalid('dayOfMonth', item)
  })
}

/** The day of the month a value names (may exceed the month length for plain numbers), or null if absent. */
function resolveDom(value: DomValue, length: number, firstWeekday: number): number | null {
  switch (value.kind) {
    case 'day':
      return value.day
    case 'last':
      return length
    case 'beforeLast':
      return length - value.days
    case 'nth': {
      if (value.nth === 0) {
        const lastWeekday = (firstWeekday + length - 1) % 7
        return length - ((lastWeekday - value.weekday + 7) % 7)
      }
      const day = 1 + ((value.weekday - firstWeekday + 7) % 7) + 7 * (value.nth - 1)
      return day <= length ? day : null
    }
  }
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcDate(year, month + 1, 0)).getUTCDate()
}

/** Offsets and wall-clock conversions of one IANA zone (src/kernel/time-zone.ts). Wall-clock times are "local ms". */
class Zone {
  private readonly timeZone: string

  constructor(timeZone: string) {
    if (!isTimeZone(timeZone)) throw new Error(`Unknown time zone '${timeZone}'`)
    this.timeZone = timeZone
  }

  /** Wall-clock time minus UTC at a whole-second instant. */
  offset(instant: number): number {
    return offsetAt(instant, this.timeZone)
  }

  /** The instants showing wall-clock time `local`: none in a gap, two in an overlap (earlier first). */
  instants(local: number): number[] {
    return instantsAt(local, this.timeZone)
  }

  /** The first whole-second instant in (from, to] whose offset is that of `to`; assumes one transition between. */
  transition(from: number, to: number): number {
    return offsetChange(from, to, this.timeZone)
  }
}

class Schedule implements CompiledSchedule {
  readonly expression: Required<ScheduleExpression>
  readonly timeZone: string
  private readonly zone: Zone
  private readonly seconds: number[]
  private readonly minutes: number[]
  private readonly hours: number[]
  private readonly months: boolean[]
  private readonly weekdays: boolean[] | null
  private readonly dom: DomItem[] | null
  private readonly years: number[] | null
  private cachedMonth = -1
  private cachedDays: boolean[] = []

  constructor(expression: Required<ScheduleExpression>, timeZone: string) {
    this.expression = expression
    this.timeZone = timeZone
    this.seconds = expandPlain('second', expression.second)
    this.minutes = expandPlain('minute', expression.minute)
    this.hours = expandPlain('hour', expression.hour)
    this.dom = parseDayOfMonth(expression.dayOfMonth)
    this.months = flags(expandPlain('month', expression.month), 13)
    this.weekdays = expression.dayOfWeek === '*' ? null : flags(expandPlain('dayOfWeek', expression.dayOfWeek), 7)
    this.years = expression.year === '*' ? null : expandPlain('year', expression.year)
    this.zone = new Zone(timeZone)
  }

  next(after: Date): Date | null {
    const ms = after.getTime()
    if (Number.isNaN(ms)) throw new RangeError('next(after): after is an invalid Date')
    const earliest = Math.max(Math.floor(ms / 1000) * 1000 + 1000, utcDate(1, 1, 1))
    let lower = earliest + this.zone.offset(earliest)
    for (;;) {
      const local = this.nextLocal(lower)
      if (local === null) return null
      const [first, second] = this.zone.instants(local)
      if (first === undefined) {
        // Spring-forward gap: nothing up to its end exists on the wall clock.
        const a = local - this.zone.offset(local - DAY_MS)
        const b = local - this.zone.offset(local + DAY_MS)
        const end = this.zone.transition(Math.min(a, b), Math.max(a, b))
        lower = Math.max(local + 1000, end + this.zone.offset(end))
      } else if (first >= earliest) {
        return new Date(first)
      } else if (second !== undefined) {
        // `earliest` lies in the repeat of a fall-back overlap: every repeated time already fired the first time.
        const end = this.zone.transition(first, second)
        lower = Math.max(local + 1000, end + this.zone.offset(first))
      } else {
        lower = local + 1000
      }
    }
  }

  /** The first wall-clock time at or after `lower` (local ms) that the fields match, up to the end of 2200. */
  private nextLocal(lower: number): number | null {
    const start = new Date(lower)
    let year = start.getUTCFullYear()
    let month = start.getUTCMonth() + 1
    let day = start.getUTCDate()
    let time = start.getUTCHours() * 3600 + start.getUTCMinutes() * 60 + start.getUTCSeconds()
    while (year <= LAST_YEAR) {
      if (this.years && !this.years.includes(year)) {
        const nextYear = this.years.find((y) => y > year)
        if (nextYear === undefined) return null
        year = nextYear
        month = 1
        day = 1
        time = 0
        continue
      }
      if (month > 12) {
        year++
        month = 1
        day = 1
        time = 0
        continue
      }
      if (this.months[month]) {
        const days = this.daysOf(year, month)
        for (; day < days.length; day++, time = 0) {
          if (!days[day]) continue
          const at = this.timeAtOrAfter(time)
          if (at !== null) return utcDate(year, month, day) + at * 1000
        }
      }
      month++
      day = 1
      time = 0
    }
    return null
  }

  /** Which days (index 1..length) of a month match dayOfMonth/dayOfWeek; EJB ORs them when both are restricted. */
  private daysOf(year: number, month: number): boolean[] {
    const key = year * 12 + month
    if (key === this.cachedMonth) return this.cachedDays
    const length = daysInMonth(year, month)
    const firstWeekday = new Date(utcDate(year, month, 1)).getUTCDay()
    const days = new Array<boolean>(length + 1).fill(this.dom === null && this.weekdays === null)
    days[0] = false
    if (this.weekdays) {
      for (let d = 1; d <= length; d++) if (this.weekdays[(firstWeekday + d - 1) % 7]) days[d] = true
    }
    for (const item of this.dom ?? []) {
      const from = resolveDom(item.from, length, firstWeekday)
      const to = resolveDom(item.to, length, firstWeekday)
      if (from === null || to === null) continue
      if (from <= to) {
        for (let d = from; d <= Math.min(to, length); d++) days[d] = true
      } else {
        for (let d = from; d <= length; d++) days[d] = true
        for (let d = 1; d <= Math.min(to, length); d++) days[d] = true
      }
    }
    this.cachedMonth = key
    this.cachedDays = days
    return days
  }

  /** The first matching second of the day at or after `time` (seconds since midnight), or null. */
  private timeAtOrAfter(time: number): number | null {
    const hour = Math.floor(time / 3600)
    const minute = Math.floor(time / 60) % 60
    const second = time % 60
    const firstMinute = this.minutes[0]!
    const firstSecond = this.seconds[0]!
    for (const h of this.hours) {
      if (h < hour) continue
      if (h > hour) return h * 3600 + firstMinute * 60 + firstSecond
      for (const m of this.minutes) {
        if (m < minute) continue
        if (m > minute) return h * 3600 + m * 60 + firstSecond
        const s = this.seconds.find((candidate) => candidate >= second)
        if (s !== undefined) return h * 3600 + m * 60 + s
      }
    }
    return null
  }
}

function flags(values: number[], size: number): boolean[] {
  const result = new Array<boolean>(size).fill(false)
  for (const value of values) result[value % size] = true
  return result
}

export function compileSchedule(expression: ScheduleExpression, timeZone: string): CompiledSchedule {
  const normalized = { ...DEFAULTS }
  for (const field of SCHEDULE_FIELDS) {
    const raw: unknown = expression[field]
    if (raw === undefined || raw === null) continue
    if (typeof raw !== 'string') {
      throw new ScheduleExpressionError(field, `must be a string; expected ${EXPECTED[field]}`)
    }
    const value = raw.trim()
    // An absent field takes its EJB default; an empty one is a mistake (`"minute": ""`), refused like any bad value.
    if (value === '') throw new ScheduleExpressionError(field, `is empty; expected ${EXPECTED[field]}`)
    normalized[field] = value
  }
  return new Schedule(Object.freeze(normalized), timeZone)
}

export function nextFireTimes(schedule: CompiledSchedule, after: Date, count: number): Date[] {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`nextFireTimes: count must be a non-negative integer`)
  const times: Date[] = []
  let from = after
  while (times.length < count) {
    const next = schedule.next(from)
    if (next === null) break
    times.push(next)
    from = next
  }
  return times
}
