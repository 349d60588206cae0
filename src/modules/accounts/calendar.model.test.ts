import { describe, expect, it } from 'vitest'
import { periodContaining, validateCalendar } from './calendar.model.ts'

describe(periodContaining.name, () => {
  it.each([
    [{ calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1 }, '2026-03-15', '2026-03-01', '2026-04-01'],
    [{ calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1 }, '2026-03-01', '2026-03-01', '2026-04-01'],
    [{ calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1 }, '2028-02-29', '2028-02-01', '2028-03-01'],
    [{ calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1 }, '2026-12-31', '2026-12-01', '2027-01-01'],
    [{ calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 3 }, '2026-05-20', '2026-04-01', '2026-07-01'],
    [
      { calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1, referenceDate: '2026-01-15' },
      '2026-03-10',
      '2026-02-15',
      '2026-03-15',
    ],
    [
      { calendarType: 'PERIOD', periodUnit: 'DAY', periodLength: 7, referenceDate: '2000-01-03' },
      '2026-11-22',
      '2026-11-16',
      '2026-11-23',
    ],
    [{ calendarType: 'YEARLY', days: ['01-01', '07-01'] }, '2026-08-10', '2026-07-01', '2027-01-01'],
    [{ calendarType: 'YEARLY', days: ['07-01', '01-01'] }, '2026-03-10', '2026-01-01', '2026-07-01'],
    [{ calendarType: 'YEARLY', days: ['04-01'] }, '2026-02-01', '2025-04-01', '2026-04-01'],
  ] as const)('%j puts %s in [%s, %s)', (calendar, day, start, end) => {
    expect(periodContaining(calendar, day)).toEqual({ start, end })
  })
})

describe(validateCalendar.name, () => {
  it('names the missing period fields', () => {
    expect(validateCalendar({ calendarType: 'PERIOD' }).map((p) => p.field)).toEqual(['periodUnit', 'periodLength'])
  })
  it('refuses days that do not exist every year', () => {
    expect(validateCalendar({ calendarType: 'YEARLY', days: ['02-29', '04-31', '12-31'] }).map((p) => p.field)).toEqual(
      ['days[0]', 'days[1]'],
    )
  })
})
