import type { Decimal } from 'decimal.js'
import { AppError } from '../../kernel/errors.ts'
import { isDecimalString, money } from '../../kernel/money.ts'
import { startOfDay } from '../../kernel/time-zone.ts'

/** One usage record line: `<local_date_time>;<subscription_code>;<quantity>;<param1>;<param2>`. */
export interface UsageLine {
  /** The instant of the local date-time in the tenant time zone. */
  readonly usageDate: Date
  /** Its day there (yyyy-MM-dd): the day whose price and counter period apply. */
  readonly usageDay: string
  readonly subscriptionCode: string
  readonly quantity: Decimal
  readonly param1: string
  readonly param2: string
}

const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/

/** INVALID_USAGE_RECORD naming the field of the line (`line`, `date`, `subscription`, `quantity`). */
export const invalidUsageRecord = (field: string, message: string) =>
  new AppError('INVALID_USAGE_RECORD', `Invalid usage record: ${field} ${message}`, {
    details: [{ field, message }],
  })

/**
 * Parses a usage line: exactly five `;`-separated fields; a local date-time `yyyy-MM-ddTHH:mm[:ss]` read in the tenant
 * time zone; a subscription code; a positive decimal quantity; two free strings. INVALID_USAGE_RECORD names the field.
 */
export function parseUsageLine(text: string, timeZone: string): UsageLine {
  const line = text.replace(/\r?\n$/, '')
  if (line.includes('\n')) throw invalidUsageRecord('line', 'must be one line')
  const fields = line.split(';')
  if (fields.length !== 5) throw invalidUsageRecord('line', `must have 5 fields separated by ';', not ${fields.length}`)
  const [dateTime, subscriptionCode, quantity, param1, param2] = fields.map((f) => f.trim()) as [
    string,
    string,
    string,
    string,
    string,
  ]
  const match = LOCAL_DATE_TIME.exec(dateTime)
  const [, day, hh, mm, ss] = match ?? []
  const checked = day ? new Date(`${day}T00:00:00Z`) : undefined
  if (
    !day ||
    !checked ||
    Number.isNaN(checked.getTime()) ||
    checked.toISOString().slice(0, 10) !== day ||
    // Years start at 0001: PostgreSQL reads no year 0000 (there is none between 1 BC and AD 1).
    day < '0001' ||
    Number(hh) > 23 ||
    Number(mm) > 59 ||
    Number(ss ?? 0) > 59
  ) {
    throw invalidUsageRecord('date', `must be a local date-time yyyy-MM-ddTHH:mm:ss, not '${dateTime}'`)
  }
  if (subscriptionCode === '') throw invalidUsageRecord('subscription', 'must name a subscription code')
  if (!isDecimalString(quantity) || money(quantity).lte(0)) {
    throw invalidUsageRecord('quantity', `must be a positive decimal, not '${quantity}'`)
  }
  const offset = (Number(hh) * 3600 + Number(mm) * 60 + Number(ss ?? 0)) * 1000
  return {
    usageDate: new Date(startOfDay(day, timeZone) + offset),
    usageDay: day,
    subscriptionCode,
    quantity: money(quantity),
    param1,
    param2,
  }
}
