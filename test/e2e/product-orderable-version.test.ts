import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { useTestApp } from '../support/test-app.ts'
import { attribute, created, seedReferenceData } from './catalog-fixtures.ts'

// The version an order takes when it names none, as the server answers it (the order preview lists its attributes).
const clock = new FakeClock('2026-11-30T20:00:00Z') // 30 November in UTC, already 1 December in Auckland
const t = useTestApp({ clock })

const orderable = async (query = '') => {
  const answer = await t.request('GET', `/api/v1/products/PR_TIMED/orderableVersion${query}`)
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body as { productCode: string; day: string; version: { version: number; attributes: string[] } | null }
}

beforeAll(async () => {
  await seedReferenceData(t)
  for (const code of ['SPEED', 'COLOUR', 'DRAFTED'])
    await created(t, 'POST', '/api/v1/attributes', attribute(code, ['A', 'B']))
  await created(t, 'POST', '/api/v1/products', { code: 'PR_TIMED', name: 'Timed' })
  // Version 1 from January, version 2 from December (published now, so the latest), version 3 a draft.
  for (const [version, validFrom, code] of [
    [1, '2026-01-01', 'SPEED'],
    [2, '2026-12-01', 'COLOUR'],
    [3, '2027-01-01', 'DRAFTED'],
  ] as const) {
    await created(t, 'POST', '/api/v1/products/PR_TIMED/versions', { validFrom })
    await created(t, 'POST', `/api/v1/products/PR_TIMED/versions/${version}/attributes/${code}`, {}, 200)
    if (version < 3) {
      const published = await t.request('PUT', `/api/v1/products/PR_TIMED/versions/${version}/status?status=PUBLISHED`)
      expect(published.status, JSON.stringify(published.body)).toBe(200)
    }
  }
})

describe('GET /api/v1/products/{code}/orderableVersion', () => {
  it("answers the PUBLISHED version valid on the tenant's today, not the latest one", async () => {
    expect((await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'UTC' })).status).toBe(200)
    expect(await orderable()).toMatchObject({
      productCode: 'PR_TIMED',
      day: '2026-11-30',
      version: { version: 1, status: 'PUBLISHED', attributes: ['SPEED'] },
    })
    // The same instant is 1 December in Auckland: the tenant's day decides.
    expect((await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'Pacific/Auckland' })).status).toBe(200)
    expect(await orderable()).toMatchObject({ day: '2026-12-01', version: { version: 2, attributes: ['COLOUR'] } })
  })

  it('answers for a subscription day, null before the first version, and never a draft', async () => {
    expect(await orderable('?day=2026-06-15')).toMatchObject({ day: '2026-06-15', version: { version: 1 } })
    expect(await orderable('?day=2027-02-01')).toMatchObject({ day: '2027-02-01', version: { version: 2 } })
    expect(await orderable('?day=2025-12-31')).toEqual({ productCode: 'PR_TIMED', day: '2025-12-31', version: null })
  })

  it('refuses a day that is no date, naming it, an unknown product, and a caller without the view role', async () => {
    const bad = await t.request('GET', '/api/v1/products/PR_TIMED/orderableVersion?day=someday')
    expect(bad.status).toBe(400)
    expect(bad.body.details).toEqual([{ field: 'day', message: 'expected a date (yyyy-MM-dd)' }])
    expect((await t.request('GET', '/api/v1/products/PR_NONE/orderableVersion')).status).toBe(404)
    const outsider = await t.tokenWithRoles(['catalog.offers.view'])
    expect((await t.requestAs(outsider, 'GET', '/api/v1/products/PR_TIMED/orderableVersion')).status).toBe(403)
  })
})
