// Business days (yyyy-MM-dd) in the tenant time zone (DECISIONS "Dates on the wire": business dates are read there).

const dayFormats = new Map<string, Intl.DateTimeFormat>()
const clockFormats = new Map<string, Intl.DateTimeFormat>()

function cached(map: Map<string, Intl.DateTimeFormat>, timeZone: string, make: () => Intl.DateTimeFormat) {
  let format = map.get(timeZone)
  if (!format) {
    format = make()
    map.set(timeZone, format)
  }
  return format
}

/** The day an instant falls on in the zone. */
export function dayIn(instant: Date, timeZone: string): string {
  return cached(
    dayFormats,
    timeZone,
    () => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
  ).format(instant)
}

/** Wall-clock time in the zone minus UTC, at an instant (milliseconds). */
function offsetAt(instant: number, timeZone: string): number {
  const format = cached(
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
  const parts: Record<string, number> = {}
  for (const part of format.formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value)
  const wall = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  )
  return wall - Math.floor(instant / 1000) * 1000
}

const starts = new Map<string, number>()

/** Epoch milliseconds of the start of a day in the zone (the order preview's service period bounds). */
export function startOfDay(day: string, timeZone: string): number {
  const key = `${timeZone} ${day}`
  let start = starts.get(key)
  if (start === undefined) {
    const local = Date.parse(`${day}T00:00:00Z`)
    const guess = local - offsetAt(local, timeZone)
    start = local - offsetAt(guess, timeZone)
    // Bounded: a few years of days in a few zones.
    if (starts.size > 10_000) starts.clear()
    starts.set(key, start)
  }
  return start
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i

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
