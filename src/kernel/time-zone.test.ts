import { describe, expect, it } from 'vitest'
import { addDays, dayIn, instantsAt, offsetAt, parseBusinessDate, readDay, startOfDay } from './time-zone.ts'

// Every time-zone rule of Obol and its daylight-saving cases, in one place.

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

describe(startOfDay.name, () => {
  it.each([
    ['2026-01-15', 'UTC', Date.UTC(2026, 0, 15)],
    ['2026-02-01', 'UTC', Date.UTC(2026, 1, 1)],
    ['2026-01-15', 'Europe/Paris', Date.UTC(2026, 0, 14, 23)],
    ['2026-07-01', 'Europe/Paris', Date.UTC(2026, 5, 30, 22)],
    ['2026-03-29', 'Europe/Paris', Date.UTC(2026, 2, 28, 23)],
    ['2026-01-15', 'America/New_York', Date.UTC(2026, 0, 15, 5)],
  ])('%s in %s starts at %i', (day, zone, expected) => {
    expect(startOfDay(day, zone)).toBe(expected)
  })
})

describe(readDay.name, () => {
  it.each([
    ['2026-01-15', 'UTC', '2026-01-15'],
    ['2026-01-15T23:30:00Z', 'Europe/Paris', '2026-01-16'],
    ['2026-01-15T23:30:00', 'Europe/Paris', '2026-01-15'],
    ['2026-01-15T01:00:00+02:00', 'UTC', '2026-01-14'],
    ['2026-02-30', 'UTC', undefined],
    ['15/01/2026', 'UTC', undefined],
  ])('%s in %s is %s', (value, zone, expected) => {
    expect(readDay(value, zone)).toBe(expected)
  })

  it('gives the day of an instant in a zone', () => {
    expect(dayIn(new Date('2026-01-15T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-01-16')
  })
})

describe('offsets and wall-clock times across DST changes', () => {
  it('gives the offset in force at an instant', () => {
    expect(offsetAt(Date.UTC(2026, 0, 15), 'Europe/Paris')).toBe(3_600_000)
    expect(offsetAt(Date.UTC(2026, 6, 15), 'Europe/Paris')).toBe(7_200_000)
    expect(offsetAt(Date.UTC(2026, 6, 15), 'America/New_York')).toBe(-4 * 3_600_000)
  })

  it('finds no instant for a time skipped by spring forward, and two for a time repeated by fall back', () => {
    expect(instantsAt(Date.UTC(2026, 2, 29, 2, 30), 'Europe/Paris')).toEqual([])
    expect(instantsAt(Date.UTC(2026, 9, 25, 2, 30), 'Europe/Paris')).toEqual([
      Date.UTC(2026, 9, 25, 0, 30),
      Date.UTC(2026, 9, 25, 1, 30),
    ])
  })

  it('starts a day whose midnight is skipped at the end of the gap', () => {
    // Santiago springs forward at midnight in September: 2026-09-06 begins at 01:00 local, 04:00 UTC.
    expect(startOfDay('2026-09-06', 'America/Santiago')).toBe(Date.UTC(2026, 8, 6, 4))
  })
})
