import { describe, expect, it } from 'vitest'
import { versionValidOn, type DatedVersion } from './product-version.model.ts'

const v = (version: number, validFrom: string | null, validTo: string | null, status = 'PUBLISHED'): DatedVersion => ({
  version,
  status,
  validFrom,
  validTo,
})

describe(versionValidOn.name, () => {
  const timeline = [v(1, null, '2026-06-01'), v(2, '2026-06-01', null), v(3, '2026-09-01', null, 'DRAFT')]

  it.each([
    ['2020-01-01', 1],
    ['2026-05-31', 1],
    ['2026-06-01', 2],
    ['2027-01-01', 2],
  ])('picks the published version covering %s', (day, expected) => {
    expect(versionValidOn(timeline, day)?.version).toBe(expected)
  })

  it('never picks a draft, and finds nothing before the first start', () => {
    expect(versionValidOn([v(1, '2026-01-01', null, 'DRAFT')], '2026-02-01')).toBeUndefined()
    expect(versionValidOn([v(1, '2026-01-01', null)], '2025-12-31')).toBeUndefined()
  })

  it('prefers the version starting last, then the higher number', () => {
    expect(versionValidOn([v(1, '2026-01-01', null), v(2, '2026-03-01', null)], '2026-04-01')?.version).toBe(2)
    expect(versionValidOn([v(4, null, null), v(5, null, null)], '2026-04-01')?.version).toBe(5)
  })
})
