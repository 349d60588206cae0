import { Cron } from 'croner'
import { describe, it, expect } from 'vitest'
import {
  SCHEDULE_FIELDS,
  ScheduleExpressionError,
  compileSchedule,
  nextFireTimes,
  type ScheduleExpression,
} from './schedule-expression.ts'

// Expected instants were worked out by hand and checked against Python's calendar/zoneinfo, not against this code.
const iso = (date: Date): string => date.toISOString().replace('.000Z', 'Z')
const fireTimes = (expression: ScheduleExpression, timeZone: string, after: string, count: number): string[] =>
  nextFireTimes(compileSchedule(expression, timeZone), new Date(after), count).map(iso)
const days = (month: string, list: number[]): string[] =>
  list.map((day) => `${month}-${String(day).padStart(2, '0')}T00:00:00Z`)

describe('compileSchedule: time of day (UTC)', () => {
  it.each<[string, ScheduleExpression, string, string[]]>([
    ['defaults: every day at midnight', {}, '2026-03-10T12:00:00Z', days('2026-03', [11, 12, 13])],
    [
      'every second, strictly after a fractional instant',
      { second: '*', minute: '*', hour: '*' },
      '2026-03-10T12:00:00.250Z',
      ['2026-03-10T12:00:01Z', '2026-03-10T12:00:02Z', '2026-03-10T12:00:03Z'],
    ],
    [
      '*/15 minutes',
      { minute: '*/15', hour: '*' },
      '2026-03-10T12:07:00Z',
      ['2026-03-10T12:15:00Z', '2026-03-10T12:30:00Z', '2026-03-10T12:45:00Z', '2026-03-10T13:00:00Z'],
    ],
    [
      'hour list',
      { hour: '8,12,18' },
      '2026-03-10T12:00:00Z',
      ['2026-03-10T18:00:00Z', '2026-03-11T08:00:00Z', '2026-03-11T12:00:00Z'],
    ],
    [
      'hour range with minute and second',
      { second: '15', minute: '45', hour: '9-11' },
      '2026-03-10T00:00:00Z',
      ['2026-03-10T09:45:15Z', '2026-03-10T10:45:15Z', '2026-03-10T11:45:15Z', '2026-03-11T09:45:15Z'],
    ],
    [
      'list mixing values and ranges',
      { minute: '0-1, 30', hour: '6' },
      '2026-03-10T00:00:00Z',
      ['2026-03-10T06:00:00Z', '2026-03-10T06:01:00Z', '2026-03-10T06:30:00Z', '2026-03-11T06:00:00Z'],
    ],
    [
      'x/y minutes with a start',
      { minute: '5/20', hour: '*' },
      '2026-03-10T12:00:00Z',
      ['2026-03-10T12:05:00Z', '2026-03-10T12:25:00Z', '2026-03-10T12:45:00Z', '2026-03-10T13:05:00Z'],
    ],
    [
      'x/y seconds stop at the field maximum',
      { second: '30/10', minute: '*', hour: '*' },
      '2026-03-10T12:00:00Z',
      ['2026-03-10T12:00:30Z', '2026-03-10T12:00:40Z', '2026-03-10T12:00:50Z', '2026-03-10T12:01:30Z'],
    ],
    [
      'x/y hours',
      { hour: '1/6' },
      '2026-03-10T02:00:00Z',
      ['2026-03-10T07:00:00Z', '2026-03-10T13:00:00Z', '2026-03-10T19:00:00Z', '2026-03-11T01:00:00Z'],
    ],
    [
      'wrapped hour range 22-1',
      { hour: '22-1' },
      '2026-03-10T12:00:00Z',
      [
        '2026-03-10T22:00:00Z',
        '2026-03-10T23:00:00Z',
        '2026-03-11T00:00:00Z',
        '2026-03-11T01:00:00Z',
        '2026-03-11T22:00:00Z',
      ],
    ],
    [
      'rolls over month and year ends',
      { minute: '59', hour: '23', dayOfMonth: '31', month: 'Dec' },
      '2026-12-31T23:59:00Z',
      ['2027-12-31T23:59:00Z'],
    ],
  ])('%s', (_name, expression, after, expected) => {
    expect(fireTimes(expression, 'UTC', after, expected.length)).toEqual(expected)
  })
})

describe('compileSchedule: days (UTC)', () => {
  it.each<[string, ScheduleExpression, string, string[]]>([
    ['Last', { dayOfMonth: 'Last' }, '2026-01-15T00:00:00Z', ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']],
    ['-3', { dayOfMonth: '-3' }, '2026-01-15T00:00:00Z', ['2026-01-28', '2026-02-25', '2026-03-28', '2026-04-27']],
    ['-1', { dayOfMonth: '-1' }, '2026-01-15T00:00:00Z', ['2026-01-30', '2026-02-27', '2026-03-30', '2026-04-29']],
    [
      '-7 in a non-leap February',
      { dayOfMonth: '-7', month: '2' },
      '2026-01-01T00:00:00Z',
      ['2026-02-21', '2027-02-21'],
    ],
    [
      '2nd Tue',
      { dayOfMonth: '2nd Tue' },
      '2026-01-01T00:00:00Z',
      ['2026-01-13', '2026-02-10', '2026-03-10', '2026-04-14'],
    ],
    [
      'Last Fri',
      { dayOfMonth: 'Last Fri' },
      '2026-01-01T00:00:00Z',
      ['2026-01-30', '2026-02-27', '2026-03-27', '2026-04-24'],
    ],
    [
      '1st Mon',
      { dayOfMonth: '1st Mon' },
      '2026-01-01T00:00:00Z',
      ['2026-01-05', '2026-02-02', '2026-03-02', '2026-04-06'],
    ],
    [
      '5th Fri skips months without one',
      { dayOfMonth: '5th Fri' },
      '2026-01-01T00:00:00Z',
      ['2026-01-30', '2026-05-29', '2026-07-31', '2026-10-30', '2027-01-29'],
    ],
    [
      'dayOfMonth 31 skips shorter months',
      { dayOfMonth: '31' },
      '2026-01-01T00:00:00Z',
      ['2026-01-31', '2026-03-31', '2026-05-31', '2026-07-31'],
    ],
    [
      'wrapped dayOfWeek Fri-Mon',
      { dayOfWeek: 'Fri-Mon' },
      '2026-03-10T00:00:00Z',
      ['2026-03-13', '2026-03-14', '2026-03-15', '2026-03-16', '2026-03-20'],
    ],
    [
      'wrapped dayOfMonth 27-3',
      { dayOfMonth: '27-3' },
      '2026-02-20T00:00:00Z',
      ['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02', '2026-03-03', '2026-03-27'],
    ],
    [
      'dayOfMonth range from -3 to Last',
      { dayOfMonth: '-3-Last' },
      '2026-02-01T00:00:00Z',
      ['2026-02-25', '2026-02-26', '2026-02-27', '2026-02-28', '2026-03-28'],
    ],
    [
      'dayOfMonth range wrapping from Last to 2',
      { dayOfMonth: 'Last-2' },
      '2026-02-01T00:00:00Z',
      ['2026-02-02', '2026-02-28', '2026-03-01', '2026-03-02', '2026-03-31'],
    ],
    [
      'dayOfMonth range between weekday ordinals',
      { dayOfMonth: '2nd Mon-2nd Fri', month: 'Mar' },
      '2026-01-01T00:00:00Z',
      ['2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2027-03-08'],
    ],
    ['dayOfWeek 7 is Sunday', { dayOfWeek: '7' }, '2026-03-01T00:00:00Z', ['2026-03-08', '2026-03-15', '2026-03-22']],
    ['dayOfWeek 0 is Sunday', { dayOfWeek: '0' }, '2026-03-01T00:00:00Z', ['2026-03-08', '2026-03-15', '2026-03-22']],
    ['dayOfWeek list', { dayOfWeek: 'Sat, Sun' }, '2026-03-01T00:00:00Z', ['2026-03-07', '2026-03-08', '2026-03-14']],
    [
      'names are case-insensitive',
      { dayOfMonth: 'lAST fRI', month: 'jAN,DEC', dayOfWeek: '*' },
      '2026-01-31T00:00:00Z',
      ['2026-12-25', '2027-01-29', '2027-12-31'],
    ],
    [
      'month range by name',
      { dayOfMonth: '1', month: 'Nov-Feb' },
      '2026-03-01T00:00:00Z',
      ['2026-11-01', '2026-12-01', '2027-01-01', '2027-02-01', '2027-11-01'],
    ],
    [
      'dayOfMonth and dayOfWeek both set: either matches',
      { dayOfMonth: '13', dayOfWeek: 'Fri' },
      '2026-03-01T00:00:00Z',
      ['2026-03-06', '2026-03-13', '2026-03-20', '2026-03-27', '2026-04-03', '2026-04-10', '2026-04-13', '2026-04-17'],
    ],
    [
      'dayOfMonth Last and a weekday range: either matches',
      { dayOfMonth: 'Last', dayOfWeek: 'Mon-Tue', month: 'Mar' },
      '2026-03-20T00:00:00Z',
      ['2026-03-23', '2026-03-24', '2026-03-30', '2026-03-31', '2027-03-01'],
    ],
    ['year value', { dayOfMonth: '1', month: '1', year: '2027' }, '2026-03-01T00:00:00Z', ['2027-01-01']],
    [
      'year list',
      { dayOfMonth: '1', month: '6', year: '2029, 2027' },
      '2026-03-01T00:00:00Z',
      ['2027-06-01', '2029-06-01'],
    ],
    [
      'year range',
      { dayOfMonth: '1', month: '6', year: '2027-2028' },
      '2026-03-01T00:00:00Z',
      ['2027-06-01', '2028-06-01'],
    ],
    [
      'year 2031 from far away',
      { month: 'Dec', dayOfMonth: 'Last', year: '2031' },
      '2026-03-01T00:00:00Z',
      ['2031-12-31'],
    ],
    [
      '29 February',
      { dayOfMonth: '29', month: 'Feb' },
      '2026-01-01T00:00:00Z',
      ['2028-02-29', '2032-02-29', '2036-02-29'],
    ],
    [
      'Last of February in a leap year',
      { dayOfMonth: 'Last', month: 'Feb' },
      '2027-12-01T00:00:00Z',
      ['2028-02-29', '2029-02-28'],
    ],
    [
      '-1 of February in a leap year',
      { dayOfMonth: '-1', month: 'Feb' },
      '2027-12-01T00:00:00Z',
      ['2028-02-28', '2029-02-27'],
    ],
  ])('%s', (_name, expression, after, expected) => {
    expect(fireTimes(expression, 'UTC', after, expected.length)).toEqual(expected.map((day) => `${day}T00:00:00Z`))
  })

  it.each<[string, ScheduleExpression, string]>([
    ['after the last listed year', { year: '2026,2027' }, '2027-12-31T00:00:00Z'],
    ['after the end of a year range', { dayOfMonth: '1', year: '2020-2025' }, '2026-01-01T00:00:00Z'],
    ['a day that never exists', { dayOfMonth: '30', month: 'Feb' }, '2026-01-01T00:00:00Z'],
    ['beyond the 2200 horizon', { year: '2201' }, '2026-01-01T00:00:00Z'],
  ])('next is null %s', (_name, expression, after) => {
    expect(compileSchedule(expression, 'UTC').next(new Date(after))).toBeNull()
  })

  it('stops a fire-time list at the last year', () => {
    expect(fireTimes({ dayOfMonth: '1', month: '1', year: '2027-2028' }, 'UTC', '2026-01-01T00:00:00Z', 5)).toEqual([
      '2027-01-01T00:00:00Z',
      '2028-01-01T00:00:00Z',
    ])
  })
})

describe('compileSchedule: time zones and DST', () => {
  it.each<[string, ScheduleExpression, string, string, string[]]>([
    [
      'Paris monthly on the 1st, into summer time',
      { dayOfMonth: '1' },
      'Europe/Paris',
      '2027-02-15T00:00:00Z',
      ['2027-02-28T23:00:00Z', '2027-03-31T22:00:00Z', '2027-04-30T22:00:00Z'],
    ],
    [
      'Paris monthly on the 1st, back to winter time',
      { dayOfMonth: '1' },
      'Europe/Paris',
      '2027-09-15T00:00:00Z',
      ['2027-09-30T22:00:00Z', '2027-10-31T23:00:00Z', '2027-11-30T23:00:00Z'],
    ],
    [
      'Paris daily 02:30 skips the spring-forward day',
      { hour: '2', minute: '30' },
      'Europe/Paris',
      '2027-03-27T00:00:00Z',
      ['2027-03-27T01:30:00Z', '2027-03-29T00:30:00Z'],
    ],
    [
      'Paris daily 02:30 fires once on the fall-back day',
      { hour: '2', minute: '30' },
      'Europe/Paris',
      '2027-10-30T00:00:00Z',
      ['2027-10-30T00:30:00Z', '2027-10-31T00:30:00Z', '2027-11-01T01:30:00Z'],
    ],
    [
      'New York daily 02:30 skips 2027-03-14',
      { hour: '2', minute: '30' },
      'America/New_York',
      '2027-03-12T12:00:00Z',
      ['2027-03-13T07:30:00Z', '2027-03-15T06:30:00Z', '2027-03-16T06:30:00Z'],
    ],
    [
      'New York daily 02:30 around the fall-back day',
      { hour: '2', minute: '30' },
      'America/New_York',
      '2027-11-05T12:00:00Z',
      ['2027-11-06T06:30:00Z', '2027-11-07T07:30:00Z', '2027-11-08T07:30:00Z'],
    ],
    [
      'New York daily 01:30 (ambiguous) fires at the first occurrence',
      { hour: '1', minute: '30' },
      'America/New_York',
      '2027-11-05T12:00:00Z',
      ['2027-11-06T05:30:00Z', '2027-11-07T05:30:00Z', '2027-11-08T06:30:00Z'],
    ],
    [
      'New York strictly after the ambiguous fire time',
      { hour: '1', minute: '30' },
      'America/New_York',
      '2027-11-07T05:30:00Z',
      ['2027-11-08T06:30:00Z'],
    ],
    [
      'New York just before the ambiguous fire time',
      { hour: '1', minute: '30' },
      'America/New_York',
      '2027-11-07T05:29:59.999Z',
      ['2027-11-07T05:30:00Z'],
    ],
    [
      'New York strictly after a regular fire time',
      { hour: '2', minute: '30' },
      'America/New_York',
      '2027-03-13T07:30:00Z',
      ['2027-03-15T06:30:00Z'],
    ],
    [
      'hourly through the repeated hour fires once per wall-clock time',
      { hour: '*', minute: '30' },
      'America/New_York',
      '2027-11-07T03:00:00Z',
      ['2027-11-07T03:30:00Z', '2027-11-07T04:30:00Z', '2027-11-07T05:30:00Z', '2027-11-07T07:30:00Z'],
    ],
    [
      'starting inside the repeat of the hour: its times already fired',
      { hour: '*', minute: '*/20' },
      'America/New_York',
      '2027-11-07T06:10:00Z',
      ['2027-11-07T07:00:00Z', '2027-11-07T07:20:00Z'],
    ],
    [
      'every second jumps the spring-forward gap',
      { second: '*', minute: '*', hour: '*' },
      'America/New_York',
      '2027-03-14T06:59:58Z',
      ['2027-03-14T06:59:59Z', '2027-03-14T07:00:00Z', '2027-03-14T07:00:01Z'],
    ],
    [
      'Havana skips the day whose midnight does not exist (the default schedule)',
      {},
      'America/Havana',
      '2027-03-12T12:00:00Z',
      ['2027-03-13T05:00:00Z', '2027-03-15T04:00:00Z'],
    ],
    [
      'a fractional-hour offset zone',
      { hour: '9' },
      'Asia/Kolkata',
      '2026-05-31T12:00:00Z',
      ['2026-06-01T03:30:00Z', '2026-06-02T03:30:00Z'],
    ],
    [
      'day fields are read in the zone, not in UTC',
      { hour: '23', dayOfMonth: 'Last' },
      'America/New_York',
      '2026-01-01T00:00:00Z',
      ['2026-01-01T04:00:00Z', '2026-02-01T04:00:00Z', '2026-03-01T04:00:00Z', '2026-04-01T03:00:00Z'],
    ],
  ])('%s', (_name, expression, timeZone, after, expected) => {
    expect(fireTimes(expression, timeZone, after, expected.length)).toEqual(expected)
  })
})

describe('compileSchedule: agrees with croner where croner follows EJB (UTC)', () => {
  it.each<[ScheduleExpression, string]>([
    [{ second: '*/20', minute: '0-2', hour: '*' }, '*/20 0-2 * * * * *'],
    [{ minute: '5/20', hour: '8-17', dayOfWeek: 'Mon-Fri' }, '0 5-59/20 8-17 * * 1-5 *'],
    [{ hour: '6,18', dayOfMonth: '1,15', dayOfWeek: 'Sun' }, '0 0 6,18 1,15 * 0 *'],
    [{ dayOfMonth: 'Last', month: 'Feb,Aug', year: '2027-2035' }, '0 0 0 L 2,8 * 2027-2035'],
    [{ minute: '30', hour: '12', dayOfMonth: 'Last Fri' }, '0 30 12 * * 5#L *'],
    [{ minute: '30', hour: '12', dayOfMonth: '2nd Tue' }, '0 30 12 * * 2#2 *'],
  ])('%j matches croner %s', (expression, pattern) => {
    const after = new Date('2026-03-10T10:11:12Z')
    const expected = new Cron(pattern, { timezone: 'UTC', mode: '7-part' }).nextRuns(12, after).map(iso)
    expect(expected).toHaveLength(12)
    expect(nextFireTimes(compileSchedule(expression, 'UTC'), after, 12).map(iso)).toEqual(expected)
  })
})

describe('compileSchedule: errors', () => {
  it.each<[ScheduleExpression, keyof ScheduleExpression]>([
    [{ second: '60' }, 'second'],
    [{ second: '1.5' }, 'second'],
    [{ minute: '-1' }, 'minute'],
    [{ minute: '5-' }, 'minute'],
    [{ minute: '1-2-3' }, 'minute'],
    [{ minute: '5-10/2' }, 'minute'],
    [{ minute: '1,*/5' }, 'minute'],
    [{ minute: '1,*' }, 'minute'],
    [{ minute: '**' }, 'minute'],
    [{ minute: '60/5' }, 'minute'],
    [{ hour: '24' }, 'hour'],
    [{ hour: '1,,2' }, 'hour'],
    [{ hour: ',1' }, 'hour'],
    [{ hour: '1,' }, 'hour'],
    [{ hour: '*/0' }, 'hour'],
    [{ hour: '*/24' }, 'hour'],
    [{ hour: '/2' }, 'hour'],
    [{ hour: 'noon' }, 'hour'],
    [{ dayOfMonth: '0' }, 'dayOfMonth'],
    [{ dayOfMonth: '32' }, 'dayOfMonth'],
    [{ dayOfMonth: '-8' }, 'dayOfMonth'],
    [{ dayOfMonth: '-0' }, 'dayOfMonth'],
    [{ dayOfMonth: '6th Mon' }, 'dayOfMonth'],
    [{ dayOfMonth: '2nd Fun' }, 'dayOfMonth'],
    [{ dayOfMonth: 'Tue 2nd' }, 'dayOfMonth'],
    [{ dayOfMonth: '2ndTue' }, 'dayOfMonth'],
    [{ dayOfMonth: '2nd' }, 'dayOfMonth'],
    [{ dayOfMonth: 'Fri' }, 'dayOfMonth'],
    [{ dayOfMonth: 'Last-Fri' }, 'dayOfMonth'],
    [{ dayOfMonth: '1-' }, 'dayOfMonth'],
    [{ dayOfMonth: '1,,2' }, 'dayOfMonth'],
    [{ dayOfMonth: '*/2' }, 'dayOfMonth'],
    [{ dayOfMonth: '1,*' }, 'dayOfMonth'],
    [{ month: '13' }, 'month'],
    [{ month: '0' }, 'month'],
    [{ month: 'Janu' }, 'month'],
    [{ month: '*/2' }, 'month'],
    [{ dayOfWeek: 'Fun' }, 'dayOfWeek'],
    [{ dayOfWeek: '8' }, 'dayOfWeek'],
    [{ dayOfWeek: 'Mon-' }, 'dayOfWeek'],
    [{ dayOfWeek: '1/2' }, 'dayOfWeek'],
    [{ dayOfWeek: 'Monday' }, 'dayOfWeek'],
    [{ year: '27' }, 'year'],
    [{ year: '20270' }, 'year'],
    [{ year: '0999' }, 'year'],
    [{ year: '2030-2027' }, 'year'],
    [{ year: '*/2' }, 'year'],
    [{ year: '2027,' }, 'year'],
  ])('%j is rejected', (expression, field) => {
    const attempt = (): unknown => compileSchedule(expression, 'UTC')
    expect(attempt).toThrow(ScheduleExpressionError)
    try {
      attempt()
    } catch (error) {
      expect(error).toBeInstanceOf(ScheduleExpressionError)
      expect((error as ScheduleExpressionError).field).toBe(field)
      expect((error as ScheduleExpressionError).message.startsWith(`${field}: `)).toBe(true)
    }
  })

  it('names the field and the expected form', () => {
    expect(() => compileSchedule({ dayOfWeek: 'Fun' }, 'UTC')).toThrow(
      "dayOfWeek: 'Fun' is not a day of week (0-7, Sun-Sat, ranges, lists)",
    )
  })

  it.each(['Mars/Olympus_Mons', '', 'Europe/Pariss'])('rejects the unknown time zone %j', (zone) => {
    expect(() => compileSchedule({}, zone)).toThrow(`Unknown time zone '${zone}'`)
  })
})

describe('API', () => {
  it('lists the fields in order', () => {
    expect(SCHEDULE_FIELDS).toEqual(['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year'])
  })

  it('normalizes the expression: defaults for absent fields, values trimmed', () => {
    const schedule = compileSchedule({ minute: ' 5 ', hour: undefined, dayOfWeek: 'Mon ' }, 'Europe/Paris')
    expect(schedule.timeZone).toBe('Europe/Paris')
    expect(schedule.expression).toEqual({
      second: '0',
      minute: '5',
      hour: '0',
      dayOfMonth: '*',
      month: '*',
      dayOfWeek: 'Mon',
      year: '*',
    })
  })

  it.each(SCHEDULE_FIELDS)('refuses an empty or blank %s, naming it', (field) => {
    for (const empty of ['', '   ']) {
      const attempt = () => compileSchedule({ [field]: empty }, 'UTC')
      expect(attempt).toThrow(ScheduleExpressionError)
      expect(attempt).toThrow(`${field}: is empty; expected`)
    }
  })

  it.each<[number, number]>([
    [0, 0],
    [1, 1],
    [3, 3],
  ])('nextFireTimes with count %i returns %i times', (count, length) => {
    expect(nextFireTimes(compileSchedule({}, 'UTC'), new Date('2026-01-01T00:00:00Z'), count)).toHaveLength(length)
  })

  it.each<[string, ScheduleExpression]>([
    ['29 February', { dayOfMonth: '29', month: 'Feb' }],
    ['a single far year', { year: '2031' }],
    ['a day that never exists', { dayOfMonth: '31', month: 'Apr' }],
    ['a sparse weekday ordinal', { dayOfMonth: '5th Fri', month: 'Feb' }],
  ])('computes a sparse schedule quickly: %s', (_name, expression) => {
    const schedule = compileSchedule(expression, 'Europe/Paris')
    const started = performance.now()
    for (let i = 0; i < 20; i++) schedule.next(new Date('2026-03-01T00:00:00Z'))
    expect((performance.now() - started) / 20).toBeLessThan(5)
  })
})
