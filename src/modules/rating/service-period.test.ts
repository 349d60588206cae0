import { describe, expect, it } from 'vitest'
import type { CalendarShape } from '../accounts/index.ts'
import { daysBetween, firstServicePeriod, nextServicePeriod, servicePeriodFrom } from './service-period.ts'

const MONTHLY: CalendarShape = { calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1, referenceDate: null }
const WEEKLY: CalendarShape = {
  calendarType: 'PERIOD',
  periodUnit: 'DAY',
  periodLength: 7,
  referenceDate: '2000-01-03',
}
const HALVES: CalendarShape = { calendarType: 'YEARLY', days: ['01-01', '07-01'] }

describe(firstServicePeriod.name, () => {
  it.each<[CalendarShape, string, boolean, object]>([
    [MONTHLY, '2026-01-15', false, { start: '2026-01-15', end: '2026-02-01' }],
    [MONTHLY, '2026-01-01', true, { start: '2026-01-01', end: '2026-02-01' }],
    [MONTHLY, '2026-01-15', true, { start: '2026-01-15', end: '2026-02-01', prorata: { days: 17, periodDays: 31 } }],
    [MONTHLY, '2028-02-10', true, { start: '2028-02-10', end: '2028-03-01', prorata: { days: 20, periodDays: 29 } }],
    [MONTHLY, '2026-12-31', false, { start: '2026-12-31', end: '2027-01-01' }],
    [WEEKLY, '2026-11-19', false, { start: '2026-11-19', end: '2026-11-23' }],
    [HALVES, '2026-03-10', true, { start: '2026-03-10', end: '2026-07-01', prorata: { days: 113, periodDays: 181 } }],
  ])('%j from %s (prorata %s) is %j', (calendar, date, prorate, expected) => {
    expect(firstServicePeriod(calendar, date, prorate)).toEqual(expected)
  })
})

describe(nextServicePeriod.name, () => {
  it('continues with whole calendar periods', () => {
    expect(nextServicePeriod(MONTHLY, '2026-02-01')).toEqual({ start: '2026-02-01', end: '2026-03-01' })
    expect(servicePeriodFrom(MONTHLY, '2026-01-15', '2026-02-01', true)).toEqual({
      start: '2026-02-01',
      end: '2026-03-01',
    })
    expect(servicePeriodFrom(MONTHLY, '2026-01-15', '2026-01-15', true).prorata).toEqual({ days: 17, periodDays: 31 })
  })

  it('counts days across month and year ends', () => {
    expect(daysBetween('2026-12-15', '2027-01-01')).toBe(17)
    expect(daysBetween('2026-03-01', '2026-04-01')).toBe(31)
  })
})
