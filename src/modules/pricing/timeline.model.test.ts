import { describe, expect, it } from 'vitest'
import { planPublication, type TimelineVersion } from './timeline.model.ts'

const v = (version: number, validFrom: string | null, validTo: string | null = null): TimelineVersion => ({
  version,
  validFrom,
  validTo,
})

describe(planPublication.name, () => {
  it.each([
    ['the first version, with a start', v(1, '2026-01-01'), undefined, null],
    ['the first version, open from the beginning', v(1, null), undefined, null],
    ['after an open-ended predecessor', v(2, '2026-03-01'), v(1, '2026-01-01'), '2026-03-01'],
    ['after a predecessor open from the beginning', v(2, '2026-03-01'), v(1, null), '2026-03-01'],
    ['inside a closed predecessor', v(3, '2026-03-01'), v(2, '2026-01-01', '2026-06-01'), '2026-03-01'],
    ['after a gap', v(3, '2026-09-01'), v(2, '2026-01-01', '2026-06-01'), null],
    ['right at a closed predecessor’s end', v(3, '2026-06-01'), v(2, '2026-01-01', '2026-06-01'), null],
  ])('publishes %s', (_case, candidate, latest, closeAt) => {
    expect(planPublication(candidate, latest, { firstStartsOn: null })).toEqual({
      ok: true,
      closePredecessorAt: closeAt,
    })
  })

  it.each([
    ['starting on the predecessor’s start', v(2, '2026-01-01'), v(1, '2026-01-01'), 'at or before the start'],
    ['starting before the predecessor', v(2, '2025-12-31'), v(1, '2026-01-01'), 'at or before the start'],
    ['without a start after a predecessor', v(2, null), v(1, '2026-01-01'), 'has no start date'],
  ])('refuses a version %s', (_case, candidate, latest, reason) => {
    const plan = planPublication(candidate, latest, { firstStartsOn: '2026-05-05' })
    expect(plan.ok).toBe(false)
    if (!plan.ok) expect(plan.reason).toContain(reason)
  })

  it.each<[string, TimelineVersion, string]>([
    ['open-ended', v(1, null), '2026-05-05'],
    ['ending after the publish day', v(1, null, '2026-05-06'), '2026-05-05'],
  ])('starts a first product version without start, %s, on the publish day', (_case, candidate, day) => {
    expect(planPublication(candidate, undefined, { firstStartsOn: day })).toEqual({
      ok: true,
      closePredecessorAt: null,
      startAt: day,
    })
  })

  it('refuses a first version without start that would end on or before the publish day', () => {
    const plan = planPublication(v(1, null, '2026-05-05'), undefined, { firstStartsOn: '2026-05-05' })
    expect(plan).toEqual({
      ok: false,
      reason:
        'version 1 has no start date (validFrom) and ends on 2026-05-05: published today it would start on 2026-05-05, not before its end',
    })
  })
})
