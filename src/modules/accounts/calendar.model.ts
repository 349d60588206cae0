import type { ErrorDetail } from '../../kernel/errors.ts'

export interface CalendarShape {
  calendarType: 'PERIOD' | 'YEARLY'
  periodUnit?: 'DAY' | 'MONTH' | null
  periodLength?: number | null
  /** PERIOD: the date periods count from (default 2000-01-01, so monthly periods start on the 1st). */
  referenceDate?: string | null
  /** YEARLY: period start days as MM-dd. */
  days?: readonly string[] | null
}

export interface Period {
  /** Inclusive, yyyy-MM-dd. */
  start: string
  /** Exclusive, yyyy-MM-dd. */
  end: string
}

const MM_DD = /^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/

export function validateCalendar(record: Record<string, unknown>): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  if (record.calendarType === 'PERIOD') {
    if (record.periodUnit !== 'DAY' && record.periodUnit !== 'MONTH') {
      problems.push({ field: 'periodUnit', message: 'expected DAY or MONTH for a PERIOD calendar' })
    }
    if (typeof record.periodLength !== 'number' || record.periodLength < 1) {
      problems.push({ field: 'periodLength', message: 'expected a positive integer for a PERIOD calendar' })
    }
    const reference = record.referenceDate
    if (record.periodUnit === 'MONTH' && typeof reference === 'string' && Number(reference.slice(8, 10)) > 28) {
      problems.push({ field: 'referenceDate', message: 'expected a day of month of 28 or less for monthly periods' })
    }
  }
  if (record.calendarType === 'YEARLY') {
    const days = record.days
    if (!Array.isArray(days) || days.length === 0) {
      problems.push({ field: 'days', message: 'expected a non-empty list of MM-dd days for a YEARLY calendar' })
    } else {
      days.forEach((d: unknown, i) => {
        if (
          typeof d !== 'string' ||
          !MM_DD.test(d) ||
          d === '02-29' ||
          (d.endsWith('-30') && d.startsWith('02')) ||
          (d.endsWith('-31') && ['02', '04', '06', '09', '11'].includes(d.slice(0, 2)))
        ) {
          problems.push({ field: `days[${i}]`, message: 'expected a day of the year as MM-dd that exists every year' })
        }
      })
    }
  }
  return problems
}

const toDate = (iso: string) => new Date(`${iso}T00:00:00Z`)
const toIso = (d: Date) => d.toISOString().slice(0, 10)

function addMonths(date: Date, months: number): Date {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1))
  d.setUTCDate(Math.min(date.getUTCDate(), 28))
  return d
}

/** The billing period containing `day` (yyyy-MM-dd): start inclusive, end exclusive. */
export function periodContaining(calendar: CalendarShape, day: string): Period {
  const target = toDate(day)
  if (calendar.calendarType === 'PERIOD') {
    const length = calendar.periodLength ?? 1
    const reference = toDate(calendar.referenceDate ?? '2000-01-01')
    if (calendar.periodUnit === 'DAY') {
      const dayMs = 86_400_000
      const index = Math.floor((target.getTime() - reference.getTime()) / (length * dayMs))
      const start = new Date(reference.getTime() + index * length * dayMs)
      return { start: toIso(start), end: toIso(new Date(start.getTime() + length * dayMs)) }
    }
    const monthsBetween =
      (target.getUTCFullYear() - reference.getUTCFullYear()) * 12 + (target.getUTCMonth() - reference.getUTCMonth())
    let index = Math.floor(monthsBetween / length)
    let start = addMonths(reference, index * length)
    if (start > target) {
      index -= 1
      start = addMonths(reference, index * length)
    }
    return { start: toIso(start), end: toIso(addMonths(reference, (index + 1) * length)) }
  }
  const days = [...(calendar.days ?? [])].sort()
  const year = target.getUTCFullYear()
  const starts = [year - 1, year, year + 1].flatMap((y) => days.map((d) => toDate(`${y}-${d}`)))
  let start = starts[0]!
  let end = starts[1] ?? starts[0]!
  for (let i = 0; i < starts.length - 1; i++) {
    if (starts[i]! <= target && target < starts[i + 1]!) {
      start = starts[i]!
      end = starts[i + 1]!
      break
    }
  }
  return { start: toIso(start), end: toIso(end) }
}
