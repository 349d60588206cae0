import { Decimal } from 'decimal.js'
import type { FieldType } from '../../kernel/model/index.ts'
import { isExactNumber } from './json-text.ts'
import type { Value } from './query.model.ts'

/** A value that does not fit the field; the parser turns it into a 400 naming the key. */
export class ValueProblem extends Error {}

const INT32 = { min: -2147483648n, max: 2147483647n }
const INT64 = { min: -9223372036854775808n, max: 9223372036854775807n }
const DECIMAL_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/
const MAX_DECIMAL_DIGITS = 1000

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/
const EPOCH_TEXT = /^-?\d{1,16}$/
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the instants both PostgreSQL and ISO-8601 write plainly. */
const EPOCH_MIN = -62135596800000
const EPOCH_MAX = 253402300799999

/** The exact text of a JSON number: its source when a double would have rounded it. */
export function numberText(raw: unknown): string | undefined {
  if (isExactNumber(raw)) return raw.rawJSON
  if (typeof raw === 'number') return Number.isFinite(raw) ? String(raw) : undefined
  return undefined
}

function integerText(raw: unknown, range: { min: bigint; max: bigint }): string {
  let text = numberText(raw)
  if (text === undefined && typeof raw === 'string' && /^\s*[-+]?\d+\s*$/.test(raw)) text = raw.trim()
  if (text === undefined) throw new ValueProblem('expected an integer')
  let value: bigint
  try {
    const decimal = new Decimal(text)
    if (!decimal.isInteger()) throw new ValueProblem('expected an integer')
    value = BigInt(decimal.toFixed())
  } catch (error) {
    if (error instanceof ValueProblem) throw error
    throw new ValueProblem('expected an integer')
  }
  if (value < range.min || value > range.max)
    throw new ValueProblem(`expected an integer between ${range.min} and ${range.max}`)
  return value.toString()
}

/** Decimal text for `::numeric`: plain digits, never through a double, bounded so PostgreSQL accepts it. */
export function decimalText(raw: unknown): string {
  let text = numberText(raw)
  if (text === undefined && typeof raw === 'string' && DECIMAL_TEXT.test(raw.trim())) text = raw.trim()
  if (text === undefined) throw new ValueProblem('expected a decimal number')
  const decimal = new Decimal(text)
  const plain = decimal.toFixed()
  if (plain.replace(/[-.]/g, '').length > MAX_DECIMAL_DIGITS)
    throw new ValueProblem('expected a decimal number of at most 1000 digits')
  return plain
}

function booleanValue(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw
  if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) return raw.trim().toLowerCase() === 'true'
  throw new ValueProblem('expected true or false')
}

/** Text fields take strings only: a number or a boolean compared as text would match by accident, or nothing. */
function textValue(raw: unknown): string {
  if (typeof raw === 'string') return raw
  const what = typeof raw === 'boolean' ? 'a boolean' : numberText(raw) !== undefined ? 'a number' : 'this value'
  throw new ValueProblem(`expected a string for a text field, got ${what}`)
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

function validDay(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to the 1900s.
  const probe = new Date(0)
  probe.setUTCFullYear(year, month - 1, day)
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day
}

function isoOfEpoch(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < EPOCH_MIN || ms > EPOCH_MAX) {
    throw new ValueProblem('expected epoch milliseconds between years 1 and 9999')
  }
  return new Date(ms).toISOString()
}

/**
 * A date or instant as the client wrote it: `yyyy-MM-dd`, ISO-8601 date-time
 * with or without an offset (without one it is wall-clock time in the tenant zone), or epoch milliseconds.
 */
export function temporalValue(raw: unknown): Value {
  const number = numberText(raw)
  if (number !== undefined) {
    if (!/^-?\d+$/.test(number)) throw new ValueProblem('expected epoch milliseconds as an integer')
    return { kind: 'instant', iso: isoOfEpoch(Number(number)) }
  }
  if (typeof raw !== 'string')
    throw new ValueProblem('expected a date (yyyy-MM-dd), an ISO-8601 date-time or epoch milliseconds')
  const text = raw.trim()
  if (EPOCH_TEXT.test(text)) return { kind: 'instant', iso: isoOfEpoch(Number(text)) }
  const day = DAY.exec(text)
  if (day) {
    if (!validDay(Number(day[1]), Number(day[2]), Number(day[3])))
      throw new ValueProblem(`${text} is not a calendar date`)
    return { kind: 'day', day: text }
  }
  const dt = DATE_TIME.exec(text)
  if (!dt) throw new ValueProblem('expected a date (yyyy-MM-dd), an ISO-8601 date-time or epoch milliseconds')
  const [, y, mo, d, h, mi, s, fraction, offset] = dt
  if (!validDay(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) {
    throw new ValueProblem(`${text} is not a valid date-time`)
  }
  const wall = `${y!}-${mo!}-${d!}T${h!}:${mi!}:${s ?? '00'}${fraction ? `.${fraction}` : ''}`
  if (offset === undefined) return { kind: 'localDateTime', text: wall }
  let zone = offset.toUpperCase()
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '')
    const hours = Number(digits.slice(0, 2))
    const minutes = Number(digits.slice(2) || '0')
    if (hours > 18 || minutes > 59) throw new ValueProblem(`${text} has an invalid offset`)
    zone = `${zone[0]!}${pad(hours)}:${pad(minutes)}`
  }
  // Milliseconds are the precision of the wire format; PostgreSQL would keep microseconds, clients never send them.
  const ms = Date.parse(
    `${y!}-${mo!}-${d!}T${h!}:${mi!}:${s ?? '00'}.${(fraction ?? '0').padEnd(3, '0').slice(0, 3)}${zone}`,
  )
  if (Number.isNaN(ms)) throw new ValueProblem(`${text} is not a valid date-time`)
  return { kind: 'instant', iso: isoOfEpoch(ms) }
}

/** The calendar day after `day` (yyyy-MM-dd). */
export function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  const date = new Date(0)
  date.setUTCFullYear(y, m - 1, d + 1)
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
}

/** Converts a filter value to the type of the column it is compared with. */
export function valueFor(type: FieldType, raw: unknown): Value {
  switch (type) {
    case 'string':
      return { kind: 'text', text: textValue(raw) }
    case 'integer':
      return { kind: 'number', text: integerText(raw, INT32) }
    case 'long':
      return { kind: 'number', text: integerText(raw, INT64) }
    case 'decimal':
      return { kind: 'number', text: decimalText(raw) }
    case 'boolean':
      return { kind: 'boolean', value: booleanValue(raw) }
    case 'date':
    case 'instant':
      return temporalValue(raw)
    case 'json':
    case 'stringList':
      throw new ValueProblem(`a ${type === 'json' ? 'JSON' : 'list'} field cannot be compared with a value`)
  }
}
