import { periodContaining, type CalendarShape } from '../accounts/index.ts'
import type { ServicePeriod } from './rating.model.ts'

const DAY_MS = 86_400_000

/** Days from `start` to `end` (yyyy-MM-dd, end exclusive). */
export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / DAY_MS)
}

/**
 * The first service period of a recurring charge: from the subscription date to the end of
 * the calendar period containing it (exclusive). Not prorated unless the charge says so; then the share is the
 * days of the period left from the subscription date.
 */
export function firstServicePeriod(calendar: CalendarShape, subscriptionDate: string, prorate: boolean): ServicePeriod {
  const period = periodContaining(calendar, subscriptionDate)
  if (!prorate || period.start === subscriptionDate) return { start: subscriptionDate, end: period.end }
  return {
    start: subscriptionDate,
    end: period.end,
    prorata: { days: daysBetween(subscriptionDate, period.end), periodDays: daysBetween(period.start, period.end) },
  }
}

/** The period following one that ended on `start`: a whole calendar period. */
export function nextServicePeriod(calendar: CalendarShape, start: string): ServicePeriod {
  return { start, end: periodContaining(calendar, start).end }
}

/**
 * The service period starting on `start` for a charge subscribed on `subscriptionDate`: the first period when they
 * coincide, a whole calendar period otherwise.
 */
export function servicePeriodFrom(
  calendar: CalendarShape,
  subscriptionDate: string,
  start: string,
  prorate: boolean,
): ServicePeriod {
  return start === subscriptionDate
    ? firstServicePeriod(calendar, subscriptionDate, prorate)
    : nextServicePeriod(calendar, start)
}
