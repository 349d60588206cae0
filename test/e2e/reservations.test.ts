import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { useTestApp } from '../support/test-app.ts'
import { walletOperationsOf } from './order-fixtures.ts'
import {
  credit,
  expectLedgerConsistent,
  ledgerCheck,
  MEDIATION,
  placePrepaid,
  reserve,
  reserveAs,
  seedPrepaid,
  wallet,
} from './reservations-fixtures.ts'
import { minus } from '../support/decimals.ts'

const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })

beforeAll(async () => {
  await seedPrepaid(t, ['SUB_PP'])
  await credit(t, 10)
})

const confirm = (body: Record<string, unknown>) => t.request('POST', `${MEDIATION}/confirmReservation`, body)
const cancel = (reservationId: unknown) => t.request('POST', `${MEDIATION}/cancelReservation`, { reservationId })

async function reservationOf(id: number): Promise<any> {
  const filters = encodeURIComponent(JSON.stringify({ id }))
  const response = await t.request('GET', `/api/v1/query/reservation?filters=${filters}`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.data[0]
}

async function counterValue(): Promise<number> {
  const response = await t.request('GET', '/api/v1/query/counterPeriod?sortBy=id')
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return (response.body.data[0] as { value: number }).value
}

describe('prepaid wallets', () => {
  it('are created PREPAID in the billing account’s currency and credited through the ledger', async () => {
    expect(await wallet(t)).toEqual({
      code: 'PP',
      walletType: 'PREPAID',
      currency: 'EUR',
      balance: 10,
      reserved: 0,
      available: 10,
      lowBalanceLevel: null,
    })
    const bad = await t.request('POST', '/api/v1/userAccounts/UA_1/wallets/PP/credits', { amount: 0 })
    expect(bad.status).toBe(400)
    expect(bad.body.details[0].field).toBe('amount')
    // A string that is not a decimal gets one problem, in words: not also "expected a number" from the other
    // alternative (numbers and decimal strings are both accepted), nor the regular expression.
    const text = await t.request('POST', '/api/v1/userAccounts/UA_1/wallets/PP/credits', { amount: 'ten' })
    expect(text.status).toBe(400)
    expect(text.body.details).toEqual([
      {
        field: 'amount',
        message: 'expected a decimal number: a JSON number, or a string of at most 18 integer digits and 12 decimals',
      },
    ])
    const boolean = await t.request('POST', '/api/v1/userAccounts/UA_1/wallets/PP/credits', { amount: true })
    expect(boolean.body.details).toEqual([{ field: 'amount', message: 'expected a number or a string' }])
    const dup = await t.request('POST', '/api/v1/userAccounts/UA_1/wallets', { code: 'PP', walletType: 'PREPAID' })
    expect(dup.status).toBe(409)
    expect((await t.request('GET', '/api/v1/userAccounts/NOPE/wallets')).status).toBe(404)
  })
})

describe('usage reservations', () => {
  it('take free units first, hold the rest with tax, and answer what is still available', async () => {
    // 12 calls: 10 free from CT_FREE, 2 × 0.50 = 1.00 + 20 % = 1.20 held; then 8.80 / 0.60 = 14 more calls.
    const held = await reserve(t, '2026-03-10T09:00:00;SUB_PP;12;CALL;x')
    expect(held.status, JSON.stringify(held.body)).toBe(200)
    expect(held.body).toEqual({ reservationId: expect.any(Number), availableQuantity: 14, amountWithTax: 1.2 })
    expect(await wallet(t)).toMatchObject({ balance: 10, reserved: 1.2, available: 8.8 })
    expect(await counterValue()).toBe(0)
    expect(await reservationOf(held.body.reservationId)).toMatchObject({
      status: 'OPEN',
      type: 'USAGE',
      quantity: 12,
      amountWithTax: 1.2,
      amountWithoutTax: 1,
      counterPeriodValues: { '1': 10 },
      expiryDate: '2026-03-10T12:05:00.000Z',
    })

    const cancelled = await cancel(held.body.reservationId)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body).toEqual({ status: 'SUCCESS', message: expect.stringContaining('restored') })
    expect(await wallet(t)).toMatchObject({ balance: 10, reserved: 0, available: 10 })
    expect(await counterValue()).toBe(10)
    expect((await reservationOf(held.body.reservationId)).status).toBe('CANCELLED')

    // Exactly once: a second cancel or a confirm of the cancelled reservation changes nothing.
    for (const again of [
      await cancel(held.body.reservationId),
      await confirm({ reservationId: held.body.reservationId }),
    ]) {
      expect(again.status).toBe(409)
      expect(again.body).toMatchObject({ status: 'FAIL', errorCode: 'INVALID_STATE' })
    }
    expect(await wallet(t)).toMatchObject({ balance: 10, reserved: 0 })
    expect(await counterValue()).toBe(10)
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('confirm charges the consumed part as a wallet operation and gives the rest back', async () => {
    const held = await reserve(t, '2026-03-10T09:30:00;SUB_PP;13;CALL;x')
    expect(held.body).toMatchObject({ amountWithTax: 1.8 })
    // 11 consumed: the 10 free units, then 1 paid unit (0.60 with tax); 2 paid units (1.20) released.
    const confirmed = await confirm({ reservationId: held.body.reservationId, consumedQuantity: 11 })
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200)
    expect(confirmed.body.status).toBe('SUCCESS')
    expect(await wallet(t)).toMatchObject({ balance: 9.4, reserved: 0, available: 9.4 })
    expect(await counterValue()).toBe(0)
    expect(await reservationOf(held.body.reservationId)).toMatchObject({ status: 'CONFIRMED', consumedQuantity: 11 })
    const operations = await walletOperationsOf(t, 'SUB_PP')
    expect(
      operations.map((o): unknown[] => [
        o.code,
        o.chargeType,
        o.quantity,
        o.amountWithoutTax,
        o.amountTax,
        o.amountWithTax,
      ]),
    ).toEqual([['CH_CALL', 'USAGE', 1, 0.5, 0.1, 0.6]])
    expect(operations[0].operationDate).toBe('2026-03-10')

    // A repeated confirm answers INVALID_STATE without touching anything.
    const again = await confirm({ reservationId: held.body.reservationId })
    expect(again.status).toBe(409)
    expect(await wallet(t)).toMatchObject({ balance: 9.4, reserved: 0 })
    expect(await walletOperationsOf(t, 'SUB_PP')).toHaveLength(1)
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('refuses more than the available balance with 402 stating both amounts, holding nothing', async () => {
    // The counter is used up: 100 × 0.10 (CH_ANY matches any param1) = 10.00 + 20 % = 12.00 > 9.40.
    const refused = await reserve(t, '2026-03-10T10:00:00;SUB_PP;100;SMS;x')
    expect(refused.status).toBe(402)
    expect(refused.body).toEqual({
      status: 'FAIL',
      errorCode: 'INSUFFICIENT_BALANCE',
      message: 'Insufficient balance: 12 EUR required, 9.4 EUR available',
    })
    expect(await wallet(t)).toMatchObject({ balance: 9.4, reserved: 0 })
    // A JSON string body is a usage line too.
    const sent = await t.app.server.inject({
      method: 'POST',
      url: `${MEDIATION}/reserveCdr`,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify('2026-03-10T10:00:00;SUB_PP;1;SMS;x'),
    })
    const json = { status: sent.statusCode, body: sent.json() }
    expect(json.status, JSON.stringify(json.body)).toBe(200)
    expect(json.body.amountWithTax).toBe(0.12)
    expect((await cancel(json.body.reservationId)).status).toBe(200)
  })

  it('expires an OPEN reservation past its expiry date once, driven by the clock; a confirmed one never', async () => {
    expect(
      (await t.request('PUT', '/api/v1/tenantSettings', { prepaidReservationExpirationDelayinMillisec: 1000 })).status,
    ).toBe(200)
    const open = await reserve(t, '2026-03-10T11:00:00;SUB_PP;2;SMS;x')
    const kept = await reserve(t, '2026-03-10T11:00:00;SUB_PP;3;SMS;x')
    expect(await reservationOf(open.body.reservationId)).toMatchObject({ expiryDate: '2026-03-10T12:00:01.000Z' })
    expect((await confirm({ reservationId: kept.body.reservationId })).status).toBe(200)
    expect(await wallet(t)).toMatchObject({ balance: 9.04, reserved: 0.24 })
    expect(await t.app.reservationExpiry.tick()).toBe(0)
    clock.advance(1000)
    expect(await t.app.reservationExpiry.tick()).toBe(1)
    expect(await t.app.reservationExpiry.tick()).toBe(0)
    expect((await reservationOf(open.body.reservationId)).status).toBe('EXPIRED')
    expect((await reservationOf(kept.body.reservationId)).status).toBe('CONFIRMED')
    expect(await wallet(t)).toMatchObject({ balance: 9.04, reserved: 0, available: 9.04 })
    const late = await confirm({ reservationId: open.body.reservationId })
    expect(late.status).toBe(409)

    // Past its expiry date but not yet swept: confirm expires it and answers INVALID_STATE.
    const unswept = await reserve(t, '2026-03-10T11:00:00;SUB_PP;1;SMS;x')
    clock.advance(1000)
    const refused = await confirm({ reservationId: unswept.body.reservationId })
    expect(refused.status).toBe(409)
    expect(refused.body.message).toContain('EXPIRED')
    expect((await reservationOf(unswept.body.reservationId)).status).toBe('EXPIRED')
    expect(await wallet(t)).toMatchObject({ balance: 9.04, reserved: 0 })
    expect(await t.app.reservationExpiry.tick()).toBe(0)
    await t.request('PUT', '/api/v1/tenantSettings', { prepaidReservationExpirationDelayinMillisec: 300000 })
    expectLedgerConsistent(await ledgerCheck(t))
    // Each change reported in its own statement, numbered per reservation.
    const eventsOf = async (id: number) =>
      (await t.request('GET', `/api/v1/events?aggregateType=reservation&aggregateId=${id}`)).body.data
        .map((e: any) => [e.type, e.aggregate.sequence, e.data.object.status])
        .reverse()
    expect(await eventsOf(open.body.reservationId)).toEqual([
      ['reservation.created', 1, 'OPEN'],
      ['reservation.expired', 2, 'EXPIRED'],
    ])
    expect(await eventsOf(kept.body.reservationId)).toEqual([
      ['reservation.created', 1, 'OPEN'],
      ['reservation.confirmed', 2, 'CONFIRMED'],
    ])
    expect(await eventsOf(unswept.body.reservationId)).toEqual([
      ['reservation.created', 1, 'OPEN'],
      ['reservation.expired', 2, 'EXPIRED'],
    ])
  })

  it('expires at start what fell due while no process was sweeping (a restart loses nothing)', async () => {
    const held = await reserve(t, '2026-03-10T11:00:00;SUB_PP;1;SMS;x')
    expect((await reservationOf(held.body.reservationId)).status).toBe('OPEN')
    clock.advance(300_000)
    // Stopped until now, as after a restart: the sweep at start expires it.
    await t.app.reservationExpiry.start()
    await t.app.reservationExpiry.stop()
    expect((await reservationOf(held.body.reservationId)).status).toBe('EXPIRED')
    expect(await wallet(t)).toMatchObject({ reserved: 0 })
  })

  it.each([
    ['2026-03-10T09:00:00;SUB_PP;1;CALL', 'line'],
    ['2026-03-10 09:00;SUB_PP;1;CALL;x', 'date'],
    ['2026-03-10T09:00:00;NOPE;1;CALL;x', 'subscription'],
    ['2026-03-10T09:00:00;SUB_PP;-2;CALL;x', 'quantity'],
    ['2026-03-10T09:00:00;SUB_PP;abc;CALL;x', 'quantity'],
  ])('refuses the malformed line %s naming %s', async (line, field) => {
    const response = await reserve(t, line)
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({ status: 'FAIL', errorCode: 'INVALID_USAGE_RECORD' })
    expect(response.body.details[0].field).toBe(field)
  })

  it('answers 404 for an unknown reservation and 400 for a malformed id or consumed quantity', async () => {
    expect((await confirm({ reservationId: 999999 })).body).toMatchObject({ errorCode: 'ENTITY_NOT_FOUND' })
    expect((await cancel(999999)).status).toBe(404)
    expect((await cancel('x')).status).toBe(400)
    const held = await reserve(t, '2026-03-10T09:00:00;SUB_PP;1;SMS;x')
    const tooMuch = await confirm({ reservationId: held.body.reservationId, consumedQuantity: 2 })
    expect(tooMuch.status).toBe(400)
    expect(tooMuch.body.details[0].field).toBe('consumedQuantity')
    expect((await cancel(held.body.reservationId)).status).toBe(200)
  })
})

describe('reading through the Query API', () => {
  it('lists reservations and the ledger as huge-volume entities, and the wallet with its balance', async () => {
    const huge = await t.request('GET', '/api/v1/query/entities?onlyHugeEntities=true')
    expect(huge.body.entities).toEqual(expect.arrayContaining(['Reservation', 'BalanceLedger', 'WalletOperation']))
    const ledger = await t.request('GET', '/api/v1/query/balanceLedger?limit=1000&sortBy=id')
    expect(ledger.status, JSON.stringify(ledger.body)).toBe(200)
    expect(ledger.body.data[0]).toMatchObject({ type: 'CREDIT', balanceDelta: 10 })
    const wallets = await t.request(
      'GET',
      `/api/v1/query/wallet?filters=${encodeURIComponent(JSON.stringify({ code: 'PP' }))}`,
    )
    expect(wallets.status, JSON.stringify(wallets.body)).toBe(200)
    expect(wallets.body.data[0]).toMatchObject({ walletType: 'PREPAID', balance: (await wallet(t)).balance })
  })
})

describe('access', () => {
  it('needs billing.wallets.manage, and a seller-restricted caller sees only its sellers’ reservations', async () => {
    const held = await reserve(t, '2026-03-10T09:00:00;SUB_PP;1;SMS;x')
    expect((await reserveAs(t, undefined, '2026-03-10T09:00:00;SUB_PP;1;SMS;x')).status).toBe(401)
    const viewer = await t.tokenWithRoles(['billing.wallets.view'])
    expect((await reserveAs(t, viewer, '2026-03-10T09:00:00;SUB_PP;1;SMS;x')).status).toBe(403)
    expect((await t.requestAs(viewer, 'GET', '/api/v1/userAccounts/UA_1/wallets')).status).toBe(200)
    expect(
      (await t.requestAs(viewer, 'POST', '/api/v1/userAccounts/UA_1/wallets/PP/credits', { amount: 1 })).status,
    ).toBe(403)

    expect((await t.request('POST', '/api/v1/sellers', { code: 'OTHER', tradingCurrency: 'EUR' })).status).toBe(201)
    const other = await t.tokenWithRoles(['billing.wallets.manage', 'billing.wallets.view'], { sellerCodes: ['OTHER'] })
    const foreign = await reserveAs(t, other, '2026-03-10T09:00:00;SUB_PP;1;SMS;x')
    expect(foreign.status).toBe(400)
    expect(foreign.body.details[0].field).toBe('subscription')
    const confirmOther = await t.requestAs(other, 'POST', `${MEDIATION}/confirmReservation`, {
      reservationId: held.body.reservationId,
    })
    expect(confirmOther.status).toBe(404)
    expect((await t.requestAs(other, 'GET', '/api/v1/userAccounts/UA_1/wallets')).status).toBe(404)
    const listed = await t.requestAs(other, 'GET', '/api/v1/query/reservation')
    expect(listed.status, JSON.stringify(listed.body)).toBe(200)
    expect(listed.body.data).toEqual([])

    const main = await t.tokenWithRoles(['billing.wallets.manage'], { sellerCodes: ['MAIN'] })
    const mine = await t.requestAs(main, 'POST', `${MEDIATION}/cancelReservation`, {
      reservationId: held.body.reservationId,
    })
    expect(mine.status).toBe(200)
  })
})

describe('usage of a subscription with discount plans', () => {
  it('holds and charges the usage with its order’s discounts, as wallet operations of a placed order would be', async () => {
    await placePrepaid(t, 'SUB_DISC', { discountPlanCodes: ['DP_ORDER_20'] })
    const before = await wallet(t)
    // 5 SMS × 0.10 = 0.50, 20 % off = 0.40, + 20 % tax = 0.48.
    const held = await reserve(t, '2026-03-10T09:00:00;SUB_DISC;5;SMS;x')
    expect(held.status, JSON.stringify(held.body)).toBe(200)
    expect(held.body.amountWithTax).toBe(0.48)
    expect((await confirm({ reservationId: held.body.reservationId })).status).toBe(200)
    const operations = await walletOperationsOf(t, 'SUB_DISC')
    expect(operations.map((o): unknown[] => [o.code, o.chargeType, o.amountWithoutTax, o.amountWithTax])).toEqual([
      ['CH_ANY', 'USAGE', 0.5, 0.6],
      ['ORD20', 'USAGE', -0.1, -0.12],
    ])
    expect(operations[1].discountedWalletOperation).toEqual({ id: operations[0].id })
    const after = await wallet(t)
    expect(minus(before.balance, after.balance)).toBe('0.48')
    expect(after.reserved).toBe(0)
    expectLedgerConsistent(await ledgerCheck(t))
  })
})
