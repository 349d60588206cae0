// Business dates of bill runs and schedules, read in the tenant time zone (DECISIONS "Dates on the wire").

const DAY_MS = 86_400_000
const formats = new Map<string, Intl.DateTimeFormat>()

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formats.set(timeZone, format)
  }
  return format
}

/** Wall-clock milliseconds ("local ms", read as UTC) of an instant in a zone. */
function wallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {}
  for (const part of formatFor(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  }
  const date = new Date(0)
  date.setUTCFullYear(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1)
  date.setUTCHours(parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, instant - Math.floor(instant / 1000) * 1000)
  return date.getTime()
}

/**
 * The instant showing wall-clock time `local` in the zone: the earlier one when the time repeats (fall back);
 * a time skipped by a spring-forward gap is read with the offset before the gap, so it lands just after it.
 */
export function zonedInstant(local: number, timeZone: string): number {
  const before = local - (wallClock(local - DAY_MS, timeZone) - (local - DAY_MS))
  const after = local - (wallClock(local + DAY_MS, timeZone) - (local + DAY_MS))
  const exact = [before, after].filter((instant) => wallClock(instant, timeZone) === local).sort((a, b) => a - b)
  return exact[0] ?? before
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
  const local = new Date(0)
  local.setUTCFullYear(year, month - 1, day)
  local.setUTCHours(hour, minute, second, 0)
  if (local.getUTCDate() !== day) return undefined
  const zone = dateOnly ? undefined : match[8]
  if (zone === undefined) return new Date(zonedInstant(local.getTime(), timeZone))
  if (zone.toUpperCase() === 'Z') return local
  const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!
  const minutes = Number(offset[2]) * 60 + Number(offset[3])
  if (Number(offset[2]) > 23 || Number(offset[3]) > 59) return undefined
  return new Date(local.getTime() - (offset[1] === '-' ? -1 : 1) * minutes * 60_000)
}

/** The same wall-clock time `days` calendar days later (or earlier) in the zone, across DST changes. */
export function addDays(instant: Date, days: number, timeZone: string): Date {
  if (days === 0) return instant
  return new Date(zonedInstant(wallClock(instant.getTime(), timeZone) + days * DAY_MS, timeZone))
}
