import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { rows } from '../../src/kernel/db/database.ts'
import { useTestApp } from '../support/test-app.ts'
import { charge, created, seedReferenceData } from './catalog-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedReferenceData(t)
})

const statuses = (responses: { status: number }[]) => responses.map((r) => r.status).sort()

/**
 * Concurrent requests on one charge or product: the row lock serializes them and the unique constraints back it up.
 * On PGlite (one connection) requests interleave between statements; on PostgreSQL they truly run in parallel.
 */
describe('catalog under concurrent requests', () => {
  it('publishes a draft once when two publications race', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_RACE', 'ONESHOT'))
    await created(t, 'PUT', '/api/v1/charges/CH_RACE/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      price: 1,
    })
    const results = await Promise.all(
      [1, 2].map(() => t.request('POST', '/api/v1/charges/CH_RACE/pricing/publish', {})),
    )
    expect(statuses(results)).toEqual([200, 409])
    const versions = await rows<{ status: string }>(
      t.db.current.db,
      sql`select v.status from pricing_version v join charge_template c on c.id = v.charge_id where c.code = 'CH_RACE'`,
    )
    expect(versions).toEqual([{ status: 'PUBLISHED' }])
  })

  it('keeps one draft when several drafts are saved at once', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_DRAFTS', 'ONESHOT'))
    const results = await Promise.all(
      [1, 2, 3, 4].map((price) =>
        t.request('PUT', '/api/v1/charges/CH_DRAFTS/pricing/draft', { pricingModel: 'FLAT', currency: 'EUR', price }),
      ),
    )
    expect(statuses(results)).toEqual([201, 201, 201, 201])
    const versions = await rows<{ version: number; status: string }>(
      t.db.current.db,
      sql`select v.version, v.status from pricing_version v join charge_template c on c.id = v.charge_id where c.code = 'CH_DRAFTS'`,
    )
    expect(versions).toEqual([{ version: 1, status: 'DRAFT' }])
  })

  it('never overlaps the timeline when a draft is saved and published concurrently with another publication', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_MIXED', 'ONESHOT'))
    await created(t, 'PUT', '/api/v1/charges/CH_MIXED/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      price: 1,
      validFrom: '2026-01-01',
    })
    await Promise.all([
      t.request('POST', '/api/v1/charges/CH_MIXED/pricing/publish', {}),
      t.request('PUT', '/api/v1/charges/CH_MIXED/pricing/draft', {
        pricingModel: 'FLAT',
        currency: 'EUR',
        price: 2,
        validFrom: '2026-05-01',
      }),
      t.request('POST', '/api/v1/charges/CH_MIXED/pricing/publish', {}),
    ])
    const published = await rows<{ valid_from: string; valid_to: string | null }>(
      t.db.current.db,
      sql`select to_char(valid_from, 'YYYY-MM-DD') as valid_from, to_char(valid_to, 'YYYY-MM-DD') as valid_to
        from pricing_version v join charge_template c on c.id = v.charge_id
        where c.code = 'CH_MIXED' and v.status = 'PUBLISHED' order by valid_from`,
    )
    expect(published.length).toBeGreaterThanOrEqual(1)
    expect(published.filter((v) => v.valid_to === null)).toHaveLength(1)
    for (let i = 1; i < published.length; i++) expect(published[i - 1]!.valid_to).toBe(published[i]!.valid_from)
  })

  it('numbers product versions created at once without gaps or duplicates', async () => {
    await created(t, 'POST', '/api/v1/products', { code: 'PR_RACE' })
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map(() => t.request('POST', '/api/v1/products/PR_RACE/versions', {})),
    )
    expect(statuses(results)).toEqual([201, 201, 201, 201, 201])
    expect(results.map((r) => Number(r.body.version)).sort()).toEqual([1, 2, 3, 4, 5])
  })

  it('keeps published product versions from overlapping when two publications race', async () => {
    await created(t, 'POST', '/api/v1/products', { code: 'PR_PUBLISH' })
    await created(t, 'POST', '/api/v1/products/PR_PUBLISH/versions', { validFrom: '2026-01-01' })
    await created(t, 'POST', '/api/v1/products/PR_PUBLISH/versions', { validFrom: '2026-02-01' })
    const results = await Promise.all(
      [1, 2].map((v) => t.request('PUT', `/api/v1/products/PR_PUBLISH/versions/${v}/status?status=PUBLISHED`)),
    )
    expect(results.some((r) => r.status === 200)).toBe(true)
    for (const r of results) expect([200, 409]).toContain(r.status)
    const versions = (await t.request('GET', '/api/v1/products/PR_PUBLISH/versions')).body.versions.filter(
      (v: { status: string }) => v.status === 'PUBLISHED',
    )
    versions.sort((a: { validFrom: string }, b: { validFrom: string }) => a.validFrom.localeCompare(b.validFrom))
    for (let i = 1; i < versions.length; i++) expect(versions[i - 1].validTo).toBe(versions[i].validFrom)
    expect(versions.at(-1).validTo).toBeNull()
  })
})
