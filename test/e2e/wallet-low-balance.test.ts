import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { useTestApp } from '../support/test-app.ts'
import { credit, reserve, seedPrepaid, wallet } from './reservations-fixtures.ts'

const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })
const PP = '/api/v1/userAccounts/UA_1/wallets/PP'

beforeAll(async () => {
  await seedPrepaid(t, ['SUB_LB'])
  await credit(t, 10)
})

/** The wallet's events of a type, oldest first. */
async function walletEvents(type: string): Promise<any[]> {
  const response = await t.request('GET', `/api/v1/events?type=${type}&aggregateType=wallet`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return (response.body.data as any[]).reverse()
}

/** Reserves `units` units of the 0.10 usage charge (CH_ANY) and answers the wallet's available amount after. */
async function hold(units: number): Promise<number> {
  const answer = await reserve(t, `2026-03-10T11:00:00;SUB_LB;${units};SMS;x`)
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return (await wallet(t)).available as number
}

describe('a wallet crossing its low-balance level', () => {
  /** What one unit holds, taxes included (0.10 + 20 %). */
  const UNIT = 0.12
  /** The units whose hold takes the available amount just below `level`. */
  const unitsBelow = async (level: number) =>
    Math.floor(((((await wallet(t)).available as number) - level) / UNIT) * 1.0000001) + 1

  it('reports wallet.balance_low once each time the available amount falls below the level', async () => {
    const set = await t.request('PUT', PP, { lowBalanceLevel: '5.00' })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    expect(set.body).toMatchObject({ code: 'PP', available: 10, lowBalanceLevel: 5 })
    expect(await hold(10)).toBe(8.8)
    expect(await walletEvents('wallet.balance_low')).toEqual([])
    // 8.80 − 31 × 0.12 = 5.08: still at or above the level; one unit more is 4.96, below it.
    expect(await hold(31)).toBe(5.08)
    expect(await walletEvents('wallet.balance_low')).toEqual([])
    expect(await hold(1)).toBe(4.96)
    const [first, ...others] = await walletEvents('wallet.balance_low')
    expect(others).toEqual([])
    expect(first.data).toEqual({
      object: {
        userAccount: 'UA_1',
        code: 'PP',
        walletType: 'PREPAID',
        currency: 'EUR',
        balance: 10,
        reserved: 5.04,
        available: 4.96,
        lowBalanceLevel: 5,
      },
      previous: { available: 5.08 },
    })

    // Further down while below: no new crossing.
    expect(await hold(1)).toBe(4.84)
    expect(await walletEvents('wallet.balance_low')).toHaveLength(1)
    // A reservation refused for want of balance changes nothing and reports nothing.
    const refused = await reserve(t, '2026-03-10T11:00:00;SUB_LB;1000;SMS;x')
    expect(refused.status).toBe(402)
    expect(await walletEvents('wallet.balance_low')).toHaveLength(1)

    // Credited back above the level, then down again: a second crossing, later in the wallet's sequence.
    await credit(t, 20)
    expect(await hold(await unitsBelow(5))).toBeLessThan(5)
    const crossings = await walletEvents('wallet.balance_low')
    expect(crossings).toHaveLength(2)
    expect(crossings[1].aggregate.sequence).toBeGreaterThan(crossings[0].aggregate.sequence)
  })

  it('reports nothing once the level is removed', async () => {
    await credit(t, 50)
    const before = (await walletEvents('wallet.balance_low')).length
    expect((await t.request('PUT', PP, { lowBalanceLevel: null })).body.lowBalanceLevel).toBeNull()
    expect(await hold(await unitsBelow(5))).toBeLessThan(5)
    expect(await walletEvents('wallet.balance_low')).toHaveLength(before)
  })

  it.each([
    [{ lowBalanceLevel: -1 }, 'must be 0 or more'],
    [{ lowBalanceLevel: '0.001' }, 'EUR amounts have at most 2 decimals, not 0.001'],
    [{ lowBalanceLevel: 'lots' }, 'lowBalanceLevel'],
    [{ balance: 5 }, 'balance'],
  ])('refuses %j naming the field, changing nothing', async (body, message) => {
    const response = await t.request('PUT', PP, body)
    expect(response.status).toBe(400)
    expect(JSON.stringify(response.body)).toContain(message)
    expect((await wallet(t)).lowBalanceLevel).toBeNull()
  })

  it('refuses a level on the postpaid wallet, an unknown wallet, and a caller without the role', async () => {
    const principal = await t.request('PUT', '/api/v1/userAccounts/UA_1/wallets/PRINCIPAL', { lowBalanceLevel: 1 })
    expect(principal.status).toBe(400)
    expect(principal.body.details).toEqual([
      { field: 'lowBalanceLevel', message: 'only PREPAID wallets have a low-balance level' },
    ])
    expect((await t.request('PUT', '/api/v1/userAccounts/UA_1/wallets/NOPE', { lowBalanceLevel: 1 })).status).toBe(404)
    const viewer = await t.tokenWithRoles(['billing.wallets.view'])
    expect((await t.requestAs(viewer, 'PUT', PP, { lowBalanceLevel: 1 })).status).toBe(403)
    expect((await t.request('POST', '/api/v1/sellers', { code: 'OTHER', tradingCurrency: 'EUR' })).status).toBe(201)
    const otherSeller = await t.tokenWithRoles(['billing.wallets.manage'], { sellerCodes: ['OTHER'] })
    expect((await t.requestAs(otherSeller, 'PUT', PP, { lowBalanceLevel: 1 })).status).toBe(404)
    expect((await wallet(t)).lowBalanceLevel).toBeNull()
  })

  it('takes a level when a wallet is created', async () => {
    const created = await t.request('POST', '/api/v1/userAccounts/UA_1/wallets', {
      code: 'PP_LEVEL',
      walletType: 'PREPAID',
      lowBalanceLevel: 2.5,
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ code: 'PP_LEVEL', balance: 0, lowBalanceLevel: 2.5 })
  })
})
