import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { useTestApp } from '../support/test-app.ts'
import { seedHundredOffer, seedOrderCatalog, walletOperationsOf } from './order-fixtures.ts'
import { MEDIATION } from './reservations-fixtures.ts'

const t = useTestApp({ clock: new FakeClock('2026-03-10T12:00:00.000Z') })
const BASE = '/api/rest/billing/wallet/reservation'

beforeAll(async () => {
  await seedOrderCatalog(t)
  await seedHundredOffer(t)
})

const body = (creditLimit: number) => ({
  sellerCode: 'MAIN',
  offerCode: 'OF_B2C',
  userAccountCode: 'UA_1',
  subscriptionDate: '2026-03-01',
  creditLimit,
})

describe('offer-based wallet reservations', () => {
  it('hold the activation price under the credit limit minus the month’s open amounts, and confirm orders the offer', async () => {
    // CH_HUNDRED 100 once + CH_MONTH30's first month 30 = 130, + 20 % = 156.
    const refused = await t.request('POST', BASE, body(150))
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({
      errorCode: 'INSUFFICIENT_BALANCE',
      message: 'Insufficient balance: 156 EUR required, 150 EUR available',
    })
    const held = await t.request('POST', BASE, body(200))
    expect(held.status, JSON.stringify(held.body)).toBe(200)
    expect(held.body).toMatchObject({
      type: 'OFFER',
      status: 'OPEN',
      subscriptionCode: 'MAIN_UA_1_OF_B2C',
      creditLimit: 200,
      amountWithoutTax: 130,
      amountWithTax: 156,
      expiryDate: '2026-03-10T12:05:00.000Z',
    })
    const id = held.body.reservationId
    // Another reservation of the account counts the first one's hold: 200 − 156 = 44 left.
    const second = await t.request('POST', BASE, body(200))
    expect(second.status).toBe(402)
    expect(second.body.message).toBe('Insufficient balance: 156 EUR required, 44 EUR available')

    expect((await t.request('PUT', BASE, { reservationId: id, creditLimit: 100 })).status).toBe(402)
    const raised = await t.request('PUT', BASE, { reservationId: id, creditLimit: 300 })
    expect(raised.status).toBe(200)
    expect(raised.body.creditLimit).toBe(300)

    // A usage reservation route does not act on an offer reservation.
    expect((await t.request('POST', `${MEDIATION}/confirmReservation`, { reservationId: id })).status).toBe(404)

    const confirmed = await t.request('POST', `${BASE}/confirm`, { reservationId: id })
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200)
    expect(confirmed.body.status).toBe('CONFIRMED')
    const subscription = await t.request(
      'GET',
      `/api/v1/query/subscription?filters=${encodeURIComponent(JSON.stringify({ code: 'MAIN_UA_1_OF_B2C' }))}`,
    )
    expect(subscription.body.data).toEqual([expect.objectContaining({ status: 'ACTIVE' })])
    const operations = await walletOperationsOf(t, 'MAIN_UA_1_OF_B2C')
    expect(operations.map((o): unknown[] => [o.code, o.amountWithTax])).toEqual([['CH_HUNDRED', 120]])
    expect((await t.request('POST', `${BASE}/confirm`, { reservationId: id })).status).toBe(409)

    // The month's open wallet operations (120) now count against a new limit of 200.
    const after = await t.request('POST', BASE, { ...body(200), offerCode: 'OF_B2C' })
    expect(after.status).toBe(402)
    expect(after.body.message).toBe('Insufficient balance: 156 EUR required, 80 EUR available')
  })

  it('DELETE cancels an OPEN offer reservation once; unknown ids are 404', async () => {
    const held = await t.request('POST', BASE, { ...body(1000), userAccountCode: 'UA_1B' })
    expect(held.status, JSON.stringify(held.body)).toBe(200)
    const cancelled = await t.request('DELETE', `${BASE}/${held.body.reservationId}`)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.status).toBe('CANCELLED')
    expect((await t.request('DELETE', `${BASE}/${held.body.reservationId}`)).status).toBe(409)
    expect((await t.request('DELETE', `${BASE}/999999`)).status).toBe(404)
    expect((await t.request('POST', BASE, { ...body(1000), offerCode: 'NOPE' })).status).toBe(404)
  })
})
