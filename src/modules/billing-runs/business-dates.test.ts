import { describe, expect, it } from 'vitest'
import { addDays, parseBusinessDate } from './business-dates.ts'

const iso = (date: Date | undefined) => date?.toISOString().replace('.000Z', 'Z')

describe(parseBusinessDate.name, () => {
  it.each([
    ['2026-03-01', 'Europe/Paris', '2026-02-28T23:00:00Z'],
    ['2026-07-01', 'Europe/Paris', '2026-06-30T22:00:00Z'],
    ['2026-03-01T00:00:00Z', 'Europe/Paris', '2026-03-01T00:00:00Z'],
    ['2026-03-01T00:00:00.750Z', 'UTC', '2026-03-01T00:00:00Z'],
    ['2026-03-01T08:00:00+05:30', 'UTC', '2026-03-01T02:30:00Z'],
    ['2026-03-01T08:00-0200', 'UTC', '2026-03-01T10:00:00Z'],
    ['2026-03-29T12:00:00', 'Europe/Paris', '2026-03-29T10:00:00Z'],
    // 02:30 does not exist on the spring-forward day: read with the offset before the gap, it lands after it.
    ['2026-03-29T02:30', 'Europe/Paris', '2026-03-29T01:30:00Z'],
    // 02:30 happens twice on the fall-back day: the first one.
    ['2026-10-25T02:30:00', 'Europe/Paris', '2026-10-25T00:30:00Z'],
    ['2028-02-29', 'UTC', '2028-02-29T00:00:00Z'],
  ])('reads %s in %s as %s', (value, timeZone, expected) => {
    expect(iso(parseBusinessDate(value, timeZone))).toBe(expected)
  })

  it.each([
    '0000-01-01',
    '2026-02-29',
    '2026-13-01',
    '2026-04-31',
    '2026-03-01T24:00:00Z',
    '01/03/2026',
    '2026-03-01 10:00',
    '',
    'now',
  ])('refuses %j', (value) => {
    expect(parseBusinessDate(value, 'UTC')).toBeUndefined()
  })
})

describe(addDays.name, () => {
  it('keeps the wall-clock time across a DST change', () => {
    expect(iso(addDays(new Date('2026-03-28T11:00:00Z'), 1, 'Europe/Paris'))).toBe('2026-03-29T10:00:00Z')
    expect(iso(addDays(new Date('2026-03-31T22:00:00Z'), -2, 'Europe/Paris'))).toBe('2026-03-29T22:00:00Z')
    expect(iso(addDays(new Date('2026-01-31T00:00:00Z'), 30, 'UTC'))).toBe('2026-03-02T00:00:00Z')
  })
})
