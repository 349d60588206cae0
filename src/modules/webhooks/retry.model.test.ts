import { describe, expect, it } from 'vitest'
import { MAX_ATTEMPTS, outcomeOf, retryAfterMs } from './retry.model.ts'

const now = new Date('2026-12-01T10:00:00Z')
const later = (outcome: ReturnType<typeof outcomeOf>) =>
  outcome.status === 'RETRYING' ? (outcome.nextAttemptAt.getTime() - now.getTime()) / 1000 : outcome.status

describe(outcomeOf.name, () => {
  it('succeeds on any 2xx', () => {
    expect(outcomeOf({ kind: 'status', status: 204 }, 1, now, 1)).toEqual({ status: 'SUCCEEDED' })
  })

  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then fails: eight attempts in all', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => later(outcomeOf({ kind: 'status', status: 500 }, n, now, 1)))
    expect(waits).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000])
    expect(MAX_ATTEMPTS).toBe(8)
    expect(outcomeOf({ kind: 'error', message: 'ECONNREFUSED' }, 8, now, 1)).toEqual({ status: 'FAILED' })
  })

  it('spreads a retry by its jitter (±10 %)', () => {
    expect(later(outcomeOf({ kind: 'status', status: 500 }, 1, now, 0.9))).toBe(4.5)
    expect(later(outcomeOf({ kind: 'status', status: 500 }, 1, now, 1.1))).toBe(5.5)
  })

  it('waits a 429’s or 503’s Retry-After instead, at most a day; disables on 410', () => {
    expect(later(outcomeOf({ kind: 'status', status: 429, retryAfter: '120' }, 1, now, 1))).toBe(120)
    expect(later(outcomeOf({ kind: 'status', status: 503, retryAfter: '999999' }, 1, now, 1))).toBe(86400)
    expect(later(outcomeOf({ kind: 'status', status: 500, retryAfter: '120' }, 1, now, 1))).toBe(5)
    expect(outcomeOf({ kind: 'status', status: 410 }, 1, now, 1)).toEqual({
      status: 'FAILED',
      disableEndpoint: 'the endpoint answered 410 Gone',
    })
  })
})

describe(retryAfterMs.name, () => {
  it('reads seconds or an HTTP date', () => {
    expect(retryAfterMs('30', now)).toBe(30_000)
    expect(retryAfterMs('Tue, 01 Dec 2026 10:01:00 GMT', now)).toBe(60_000)
    expect(retryAfterMs('soon', now)).toBeUndefined()
  })
})
