import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { dayIn, isTimeZone, parseBusinessDate, readDay, wallClock } from '../../src/kernel/time-zone.ts'

/**
 * UTC, every tenant's default zone, is read without Intl (src/kernel/time-zone.ts). Its readings must be those of
 * the same zone read through Intl: `Etc/UTC`, another name of it, still is.
 */
describe('UTC read without Intl', () => {
  const instants = fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(20_000, 0, 1) })
  const edges = [Date.UTC(999, 11, 31, 23, 59, 59, 999), Date.UTC(1000, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59, 999)]

  it('gives the days and clock readings Intl gives, in the years read directly and outside them', () => {
    for (const instant of [...edges, Date.UTC(10_000, 0, 1)]) {
      expect(dayIn(new Date(instant), 'UTC')).toBe(dayIn(new Date(instant), 'Etc/UTC'))
      expect(wallClock(instant, 'UTC')).toBe(wallClock(instant, 'Etc/UTC'))
    }
    fc.assert(
      fc.property(instants, (instant) => {
        expect(dayIn(new Date(instant), 'UTC')).toBe(dayIn(new Date(instant), 'Etc/UTC'))
        expect(wallClock(instant, 'UTC')).toBe(wallClock(instant, 'Etc/UTC'))
      }),
      { numRuns: 2000 },
    )
  })

  it('reads business dates as Intl does', () => {
    expect(isTimeZone('UTC')).toBe(true)
    for (const value of ['2026-11-26', '2026-11-26T23:30:00', '2026-11-26T23:30:00+02:00', '2026-02-30']) {
      expect(readDay(value, 'UTC')).toBe(readDay(value, 'Etc/UTC'))
      expect(parseBusinessDate(value, 'UTC')?.getTime()).toBe(parseBusinessDate(value, 'Etc/UTC')?.getTime())
    }
    expect(() => dayIn(new Date(NaN), 'UTC')).toThrow(RangeError)
  })
})
