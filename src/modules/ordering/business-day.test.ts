import { describe, expect, it } from 'vitest'
import { dayIn, readDay, startOfDay } from './business-day.ts'

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
