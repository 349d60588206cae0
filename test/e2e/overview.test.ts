import { describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { seedDemo } from '../../src/seed.ts'
import { useTestApp } from '../support/test-app.ts'

// The landing figures: read through the query layer on the tenant's calendar, with the caller's roles and sellers.
const clock = new FakeClock('2026-11-24T10:00:00Z')
const t = useTestApp({ clock })

const cdr = async (line: string) => {
  const answer = await t.app.server.inject({
    method: 'POST',
    url: '/api/rest/billing/mediation/reserveCdr',
    headers: { 'content-type': 'text/plain', authorization: `Bearer ${t.adminToken}` },
    payload: line,
  })
  expect(answer.statusCode, answer.body).toBe(200)
  return answer.json<{ reservationId: number; amountWithTax: number }>()
}

describe('GET /api/v1/overview', () => {
  it('counts the operations rated today and this month, open reservations and the next bill runs', async () => {
    await seedDemo(t.db.current.db)
    const before = await t.request('GET', '/api/v1/overview')
    expect(before.status, JSON.stringify(before.body)).toBe(200)
    expect(before.body).toMatchObject({ today: '2026-11-24' })

    // A prepaid wallet with credit for the holds, then two usages today: one confirmed (a wallet operation), one still held.
    const wallet = await t.request('POST', '/api/v1/userAccounts/UA_001/wallets', { code: 'PP', walletType: 'PREPAID' })
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(201)
    const credit = await t.request('POST', '/api/v1/userAccounts/UA_001/wallets/PP/credits', { amount: '25.00' })
    expect(credit.status, JSON.stringify(credit.body)).toBe(201)
    const confirmed = await cdr('2026-11-24T08:00:00;SUB_DEMO_001;100;DATA;')
    const held = await cdr('2026-11-24T09:00:00;SUB_DEMO_001;200;DATA;')
    const confirm = await t.request('POST', '/api/rest/billing/mediation/confirmReservation', {
      reservationId: confirmed.reservationId,
    })
    expect(confirm.status, JSON.stringify(confirm.body)).toBe(200)

    const after = await t.request('GET', '/api/v1/overview')
    expect(after.status).toBe(200)
    const ops = after.body.walletOperations
    const countOf = (list: { currency: string; count: number }[]) => list.find((x) => x.currency === 'EUR')?.count ?? 0
    const before_ = before.body.walletOperations
    expect(countOf(ops.today)).toBe(countOf(before_.today) + 1)
    expect(countOf(ops.thisMonth)).toBe(countOf(before_.thisMonth) + 1)
    expect(ops.perDay).toHaveLength(30)
    expect(ops.perDay.at(-1)).toEqual({ day: '2026-11-24', count: countOf(ops.today), totals: ops.today })
    expect(ops.perDay[0].day).toBe('2026-10-26')
    // 200 MB at 0.01 is 2.00, 2.40 with tax, still held.
    const reservations = after.body.openReservations.find((x: { currency: string }) => x.currency === 'EUR')
    expect(reservations).toEqual({ currency: 'EUR', count: 1, amountWithTax: String(held.amountWithTax) })
    expect(Array.isArray(after.body.nextBillRuns)).toBe(true)
  })

  it('gives each part only to a caller who may read it, and refuses one who may read none', async () => {
    const billRunsOnly = await t.tokenWithRoles(['billing.billingRuns.view'])
    const partial = await t.requestAs(billRunsOnly, 'GET', '/api/v1/overview')
    expect(partial.status).toBe(200)
    expect([partial.body.walletOperations, partial.body.openReservations]).toEqual([null, null])
    expect(Array.isArray(partial.body.nextBillRuns)).toBe(true)
    const nothing = await t.requestAs(await t.tokenWithRoles(['catalog.offers.view']), 'GET', '/api/v1/overview')
    expect([nothing.status, nothing.body.message]).toEqual([
      403,
      'This operation needs one of the roles billing.wallets.view, billing.billingRuns.view',
    ])
  })

  it("counts only the caller's sellers", async () => {
    expect((await t.request('POST', '/api/v1/sellers', { code: 'OTHER', tradingCurrency: 'EUR' })).status).toBe(201)
    const elsewhere = await t.tokenWithRoles(['billing.wallets.view', 'queryUser'], { sellerCodes: ['OTHER'] })
    const answer = await t.requestAs(elsewhere, 'GET', '/api/v1/overview')
    expect(answer.status).toBe(200)
    expect(answer.body.walletOperations.today).toEqual([])
    expect(answer.body.openReservations).toEqual([])
    expect(answer.body.walletOperations.perDay.every((d: { count: number }) => d.count === 0)).toBe(true)
    const all = await t.request('GET', '/api/v1/overview')
    expect(all.body.walletOperations.today).not.toEqual([])
  })
})
