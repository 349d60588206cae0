import { describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { useTestApp } from '../support/test-app.ts'

// The tenant's today in the session every logged-in caller reads: the day of the server's clock in the tenant zone.
const clock = new FakeClock('2026-11-24T23:30:00Z')
const t = useTestApp({ clock })

describe("GET /api/v1/auth/session: the tenant's today", () => {
  it('is the day of the server clock in the tenant time zone, for a caller without the settings role', async () => {
    const utc = await t.request('GET', '/api/v1/auth/session')
    expect(utc.status).toBe(200)
    expect(utc.body.tenant).toEqual({ today: '2026-11-24', timeZone: 'UTC' })

    // 23:30 UTC is already the next morning in Auckland (UTC+13 in November).
    const changed = await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'Pacific/Auckland' })
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)
    const reader = await t.tokenWithRoles(['catalog.offers.view'])
    expect((await t.requestAs(reader, 'GET', '/api/v1/tenantSettings')).status).toBe(403)
    const session = await t.requestAs(reader, 'GET', '/api/v1/auth/session')
    expect(session.status).toBe(200)
    expect(session.body.tenant).toEqual({ today: '2026-11-25', timeZone: 'Pacific/Auckland' })

    // The day follows the server's clock, not the caller's.
    clock.advance(24 * 3600_000)
    expect((await t.requestAs(reader, 'GET', '/api/v1/auth/session')).body.tenant.today).toBe('2026-11-26')
  })

  it('is answered to logged-in callers only', async () => {
    const anonymous = await t.requestAs(undefined, 'GET', '/api/v1/auth/session')
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).not.toHaveProperty('tenant')
  })
})
