// Time zones by their IANA names (the tenant setting holds one), through Intl (UTC read directly, below): no zone
// database of our own.
//
// Two kinds of time appear below. An *instant* is epoch milliseconds. A *wall-clock* time ("local ms") is the
// reading of a clock in the zone, stored as if it were a UTC instant: 2026-03-29 02:30 in Paris is
// Date.UTC(2026, 2, 29, 2, 30). Business dates (yyyy-MM-dd) are days of the tenant's zone: a date-time a client
// sends counts as its day there, and a day starts at the zone's midnight (or just after the gap when a DST change
// skips midnight).

export const DAY_MS = 86_400_000

/**
 * UTC (every tenant's default zone) is read without Intl between the years 1000 and 9999, where its formatters give
 * the same readings: a UTC clock shows the instant itself and its day is the ISO date. Building a first Intl
 * formatter with a zone reads about 6 MB of ICU's data and code into memory (docs/performance.md, Memory, "Idle
 * margin"); a tenant in UTC now never does. Other zones, and UTC outside these years, go through Intl.
 */
const UTC = 'UTC'
const UTC_FROM = Date.UTC(1000, 0, 1)
const UTC_UNTIL = Date.UTC(10_000, 0, 1)
const plainUtc = (timeZone: string, instant: number) => timeZone === UTC && instant >= UTC_FROM && instant < UTC_UNTIL

const clockFormats = new Map<string, Intl.DateTimeFormat>()
const dayFormats = new Map<string, Intl.DateTimeFormat>()

/** Intl formatters are costly to build: one per zone, kept (the zones in use are a handful). */
function cached(map: Map<string, Intl.DateTimeFormat>, timeZone: string, make: () => Intl.DateTimeFormat) {
  let format = map.get(timeZone)
  if (!format) {
    format = make()
    map.set(timeZone, format)
  }
  return format
}

function clockFormat(timeZone: string): Intl.DateTimeFormat {
  return cached(
    clockFormats,
    timeZone,
    () =>
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      }),
  )
}

/** True when the name is an IANA time zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  if (timeZone === UTC) return true
  try {
    clockFormat(timeZone)
    return true
  } catch {
    return false
  }
}

/** Date.UTC without its two-digit-year mapping. `month` is 1-12; day 0 is the last day of the previous month. */
export function utcDate(year: number, month: number, day: number): number {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.getTime()
}

/** The wall-clock time an instant shows in the zone (its milliseconds kept). */
export function wallClock(instant: number, timeZone: string): number {
  if (plainUtc(timeZone, instant)) return instant
  const fields: Record<string, number> = {}
  for (const part of clockFormat(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value)
  }
  const seconds = (fields.hour ?? 0) * 3600 + (fields.minute ?? 0) * 60 + (fields.second ?? 0)
  const whole = Math.floor(instant / 1000) * 1000
  return utcDate(fields.year ?? 1970, fields.month ?? 1, fields.day ?? 1) + seconds * 1000 + (instant - whole)
}

/** Wall-clock time minus UTC at an instant, in milliseconds (Paris in winter: 3,600,000). */
export function offsetAt(instant: number, timeZone: string): number {
  return wallClock(instant, timeZone) - instant
}

/**
 * The instants showing wall-clock time `local`: one most of the time, none in a gap (spring forward), two in an
 * overlap (fall back), earlier first. Offsets change at most once within a day on either side.
 */
export function instantsAt(local: number, timeZone: string): number[] {
  const before = offsetAt(local - DAY_MS, timeZone)
  const after = offsetAt(local + DAY_MS, timeZone)
  const candidates = before === after ? [local - before] : [local - before, local - after].sort((a, b) => a - b)
  return candidates.filter((instant) => wallClock(instant, timeZone) === local)
}

/**
 * The instant showing wall-clock time `local`: the earlier one when the time repeats (fall back); a time skipped by
 * a spring-forward gap is read with the offset before the gap, so it lands just after it.
 */
export function zonedInstant(local: number, timeZone: string): number {
  return instantsAt(local, timeZone)[0] ?? local - offsetAt(local - DAY_MS, timeZone)
}

/** The first whole-second instant in (from, to] whose offset is that of `to`; assumes one offset change between. */
export function offsetChange(from: number, to: number, timeZone: string): number {
  const target = offsetAt(to, timeZone)
  let lo = from
  let hi = to
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000
    if (offsetAt(mid, timeZone) === target) hi = mid
    else lo = mid
  }
  return hi
}

/** The day (yyyy-MM-dd) an instant falls on in the zone. */
export function dayIn(instant: Date, timeZone: string): string {
  if (plainUtc(timeZone, instant.getTime())) return instant.toISOString().slice(0, 10)
  return cached(
    dayFormats,
    timeZone,
    () => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
  ).format(instant)
}

const starts = new Map<string, number>()

/** The first instant of a day (yyyy-MM-dd) in the zone: its midnight, or the end of a gap that skips midnight. */
export function startOfDay(day: string, timeZone: string): number {
  const key = `${timeZone} ${day}`
  let start = starts.get(key)
  if (start === undefined) {
    start = zonedInstant(Date.parse(`${day}T00:00:00Z`), timeZone)
    // Bounded: a few years of days in a few zones.
    if (starts.size > 10_000) starts.clear()
    starts.set(key, start)
  }
  return start
}

/** The same wall-clock time `days` calendar days later (or earlier) in the zone, across DST changes. */
export function addDays(instant: Date, days: number, timeZone: string): Date {
  if (days === 0) return instant
  return new Date(zonedInstant(wallClock(instant.getTime(), timeZone) + days * DAY_MS, timeZone))
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i

/**
 * Parses an ISO-8601 date or date-time. A value with `Z` or an offset is that instant; a date-time without one
 * is wall-clock time in `timeZone`; a date is the start of that day there. Undefined when malformed or not a
 * real calendar date. Precision is the second (fractions are dropped), the granularity of schedules.
 */
export function parseBusinessDate(value: string, timeZone: string): Date | undefined {
  const dateOnly = DATE_ONLY.exec(value)
  const match = dateOnly ?? DATE_TIME.exec(value)
  if (!match) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const [hour, minute, second] = dateOnly ? [0, 0, 0] : [Number(match[4]), Number(match[5]), Number(match[6] ?? 0)]
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined
  const local = utcDate(year, month, day) + (hour * 3600 + minute * 60 + second) * 1000
  if (new Date(local).getUTCDate() !== day) return undefined
  const zone = dateOnly ? undefined : match[8]
  if (zone === undefined) return new Date(zonedInstant(local, timeZone))
  if (zone.toUpperCase() === 'Z') return new Date(local)
  const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!
  if (Number(offset[2]) > 23 || Number(offset[3]) > 59) return undefined
  const minutes = Number(offset[2]) * 60 + Number(offset[3])
  return new Date(local - (offset[1] === '-' ? -1 : 1) * minutes * 60_000)
}

/**
 * A business day from an ISO-8601 date (kept as is when it is a real day) or date-time (its day in the zone; without
 * an offset it is already wall-clock time there). Undefined when malformed.
 */
export function readDay(value: string, timeZone: string): string | undefined {
  if (DATE_ONLY.test(value)) {
    const parsed = new Date(`${value}T00:00:00Z`)
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value ? value : undefined
  }
  if (!DATE_TIME.test(value)) return undefined
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value)
  if (!hasZone) return readDay(value.slice(0, 10), timeZone)
  const instant = new Date(value)
  return Number.isNaN(instant.getTime()) ? undefined : dayIn(instant, timeZone)
}

/** The calendar day `days` after (or before) `day` (yyyy-MM-dd): business days are plain dates, no zone involved. */
export function plusDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}

/**
 * The first whole business day at or after an instant in the zone: its day when the instant is that day's start,
 * else the next day. A day `d` starts before the instant exactly when `d` is before this day.
 */
export function firstWholeDayFrom(instant: Date, timeZone: string): string {
  const day = dayIn(instant, timeZone)
  return startOfDay(day, timeZone) === instant.getTime() ? day : plusDays(day, 1)
}
