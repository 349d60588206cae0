import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../src/app.ts'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import { secondInstance, useTestApp, type SecondInstance } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'
import { charge, created } from '../e2e/catalog-fixtures.ts'
import { orderOf, place, walletOperationsOf } from '../e2e/order-fixtures.ts'
import {
  credit,
  expectLedgerConsistent,
  ledgerCheck,
  MEDIATION,
  mediationCall,
  productOffer,
  reserve,
  seedPrepaid,
  wallet,
} from '../e2e/reservations-fixtures.ts'
import { Decimal } from 'decimal.js'
import { decimalText, minus } from '../support/decimals.ts'

/**
 * Prepaid money rules (issue 36, findings 7, 8, 9), replayed: a confirm never takes a wallet below zero, also when a
 * price that depends on the quantity makes the consumed part dearer than its hold; money carries at most the
 * currency's decimals; a usage line outside its subscription's life is refused and changes nothing.
 *
 * CH_TIER prices `#{quantity > 100 ? 0.015 : 0.0333}` (tax 20 %): 150 units hold 2.25 + 0.45 = 2.70; 100 of them,
 * re-rated at the dearer tier, cost 3.33 + 0.67 = 4.00; 60 cost 2.00 + 0.40 = 2.40.
 */
const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })
let second: SecondInstance | undefined

const TIER = (subscription: string, quantity: number, day = '2026-03-10') =>
  `${day}T09:00:00;${subscription};${quantity};TIER;x`

/** A user account of BA_1 (or `billingAccount`) with a PREPAID wallet `wallet`, subscribed to OF_TIER. */
async function tierAccount(
  userAccount: string,
  walletCode: string,
  subscription: string,
  extra: Record<string, unknown> = {},
) {
  const billingAccountCode = (extra.billingAccountCode as string | undefined) ?? 'BA_1'
  await created(t, 'POST', '/api/v1/userAccounts', { code: userAccount, billingAccount: billingAccountCode })
  await created(t, 'POST', `/api/v1/userAccounts/${userAccount}/wallets`, { code: walletCode, walletType: 'PREPAID' })
  await place(
    t,
    orderOf(
      [
        {
          subscriptionCode: subscription,
          offerTemplateCode: 'OF_TIER',
          subscriptionDate: '2026-01-01',
          orderProducts: [{ productCode: 'PR_TIER' }],
        },
      ],
      { ...extra, billingAccountCode, userAccountCode: userAccount },
    ),
  )
}

beforeAll(async () => {
  await seedPrepaid(t, ['SUB_PP', 'SUB_ENDED'])
  const post = (path: string, body: unknown, status = 201) => created(t, 'POST', `/api/v1/${path}`, body, status)
  await post('charges', charge('CH_TIER', 'USAGE', { filterParam1: 'TIER' }))
  await created(t, 'PUT', '/api/v1/charges/CH_TIER/pricing/draft', {
    pricingModel: 'FORMULA',
    currency: 'EUR',
    validFrom: '2020-01-01',
    price_fx: '#{quantity > 100 ? 0.015 : 0.0333}',
  })
  await post('charges/CH_TIER/pricing/publish', {}, 200)
  await productOffer(t, 'PR_TIER', ['CH_TIER'], 'OF_TIER')
  await tierAccount('UA_TIER', 'PT', 'SUB_TIER')
  // With an order discount plan (20 % off), reserve and confirm take the locked path.
  await tierAccount('UA_TIER_PLAN', 'PD', 'SUB_TIER_PLAN', { discountPlanCodes: ['DP_ORDER_20'] })
  if (onPostgres) {
    await tierAccount('UA_RACE', 'PR', 'SUB_RACE')
    await tierAccount('UA_RACE_PLAN', 'PRD', 'SUB_RACE_PLAN', { discountPlanCodes: ['DP_ORDER_20'] })
    second = await secondInstance(t.db.url!, clock)
  }
})
afterAll(async () => {
  await second?.close()
})

const confirm = (reservationId: number, consumedQuantity?: number) =>
  t.request('POST', `${MEDIATION}/confirmReservation`, { reservationId, consumedQuantity })

async function reservationStatus(id: number): Promise<string> {
  const filters = encodeURIComponent(JSON.stringify({ id }))
  const response = await t.request('GET', `/api/v1/query/reservation?filters=${filters}`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.data[0].status as string
}

/** The ledger rows of a wallet, in order: type, balance change, reserved change (decimal text). */
async function ledgerOf(walletCode: string): Promise<[string, string, string][]> {
  const found = await rows<{ t: string; b: string; r: string }>(
    t.db.current.db,
    sql`select l.entry_type as t, l.balance_delta::text as b, l.reserved_delta::text as r from balance_ledger l
      join wallet w on w.id = l.wallet_id where w.code = ${walletCode} order by l.id`,
  )
  return found.map((row) => [row.t, decimalText(row.b), decimalText(row.r)])
}

describe('a confirm dearer than its hold', () => {
  it.each([
    ['one-statement path', 'PT', 'UA_TIER', 'SUB_TIER', 2.7, 4, 2.4],
    ['locked path (order discount plan)', 'PD', 'UA_TIER_PLAN', 'SUB_TIER_PLAN', 2.16, 3.2, 1.92],
  ])(
    '%s: is 402 naming both amounts when the hold and the available balance fall short; the reservation stays OPEN and a confirm for less works',
    async (_path, walletCode, account, subscription, held, dearer, less) => {
      await credit(t, held, walletCode, account)
      const reservation = await reserve(t, TIER(subscription, 150))
      expect(reservation.status, JSON.stringify(reservation.body)).toBe(200)
      expect(reservation.body).toMatchObject({ amountWithTax: held, availableQuantity: 0 })
      const id = reservation.body.reservationId as number

      const refused = await confirm(id, 100)
      expect(refused.status, JSON.stringify(refused.body)).toBe(402)
      expect(refused.body).toEqual({
        status: 'FAIL',
        errorCode: 'INSUFFICIENT_BALANCE',
        message: `Insufficient balance: ${dearer} EUR required, ${held} EUR available`,
      })
      expect(await reservationStatus(id)).toBe('OPEN')
      expect(await wallet(t, walletCode, account)).toMatchObject({ balance: held, reserved: held, available: 0 })
      expect(await walletOperationsOf(t, subscription)).toEqual([])

      const confirmed = await confirm(id, 60)
      expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200)
      expect(confirmed.body.message).toBe(`Reservation ${id} confirmed: 60 consumed, ${less} charged`)
      const left = minus(held, less)
      const after = await wallet(t, walletCode, account)
      expect([decimalText(after.balance), decimalText(after.available), after.reserved]).toEqual([left, left, 0])
      // The ledger proves the balance: credit, hold, the consumed part debited from the hold, the rest released.
      expect(await ledgerOf(walletCode)).toEqual([
        ['CREDIT', decimalText(held), '0'],
        ['HOLD', '0', decimalText(held)],
        ['CONSUME', minus(0, less), minus(0, less)],
        ['RELEASE', '0', minus(0, left)],
      ])
      expectLedgerConsistent(await ledgerCheck(t))
    },
  )

  it('is confirmed when the available balance pays what the hold does not, down to zero exactly', async () => {
    // PT holds 0.30 after the first case: 3.70 more makes 4.00; 150 units hold 2.70, leaving 1.30 available.
    await credit(t, '3.70', 'PT', 'UA_TIER')
    const reservation = await reserve(t, TIER('SUB_TIER', 150))
    expect(reservation.status, JSON.stringify(reservation.body)).toBe(200)
    expect(await wallet(t, 'PT', 'UA_TIER')).toMatchObject({ balance: 4, reserved: 2.7, available: 1.3 })
    const confirmed = await confirm(reservation.body.reservationId as number, 100)
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200)
    expect(confirmed.body.message).toContain('100 consumed, 4 charged')
    expect(await wallet(t, 'PT', 'UA_TIER')).toMatchObject({ balance: 0, reserved: 0, available: 0 })
    expectLedgerConsistent(await ledgerCheck(t))
  })
})

describe('amounts carry at most the currency’s decimals', () => {
  it('refuses a credit of 0.001 EUR naming the field and the decimals, and changes nothing', async () => {
    const before = await wallet(t)
    expect(before).toMatchObject({ currency: 'EUR', balance: 0 })
    for (const amount of [0.001, '4.421']) {
      const refused = await t.request('POST', '/api/v1/userAccounts/UA_1/wallets/PP/credits', { amount })
      expect(refused.status).toBe(400)
      expect(refused.body.details).toEqual([
        { field: 'amount', message: `EUR amounts have at most 2 decimals, not ${amount}` },
      ])
    }
    expect(await wallet(t)).toEqual(before)
    expect(await credit(t, '0.10')).toMatchObject({ balance: 0.1 })
  })

  it('holds and debits whole cents: every ledger amount of a wallet has at most 2 decimals', async () => {
    const [found] = await rows<{ n: string }>(
      t.db.current.db,
      sql`select count(*)::text as n from balance_ledger
        where wallet_id is not null and (balance_delta <> round(balance_delta, 2) or reserved_delta <> round(reserved_delta, 2))`,
    )
    expect(found!.n).toBe('0')
  })
})

describe('a usage line outside its subscription’s life', () => {
  const periods = async () =>
    (await t.request('GET', '/api/v1/query/counterPeriod?limit=1000')).body.data.length as number

  it('before the subscription’s start is 400 INVALID_USAGE_RECORD naming the date, and opens no counter period', async () => {
    const before = await periods()
    const refused = await reserve(t, '2025-06-01T10:00:00;SUB_PP;5;CALL;x')
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({
      errorCode: 'INVALID_USAGE_RECORD',
      details: [
        {
          field: 'date',
          message: 'must be on or after the start of subscription SUB_PP (2026-01-01), not 2025-06-01',
        },
      ],
    })
    expect(await periods()).toBe(before)
    const first = await reserve(t, '2026-01-01T00:00:00;SUB_PP;1;CALL;x')
    expect(first.status, JSON.stringify(first.body)).toBe(200)
  })

  it('after its termination is 400 INVALID_USAGE_RECORD naming the subscription, and opens no counter period', async () => {
    await t.db.current.db.execute(sql`update subscription set status = 'TERMINATED' where code = 'SUB_ENDED'`)
    const before = await periods()
    const refused = await reserve(t, '2026-03-10T10:00:00;SUB_ENDED;5;CALL;x')
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({
      errorCode: 'INVALID_USAGE_RECORD',
      details: [{ field: 'subscription', message: 'subscription SUB_ENDED is TERMINATED, not ACTIVE' }],
    })
    expect(await periods()).toBe(before)
  })
})

describe.skipIf(!onPostgres)(
  'dearer confirms racing with reserves and credits on one wallet (needs PostgreSQL)',
  () => {
    const call = (app: App, path: string, body: unknown, contentType?: string) =>
      mediationCall(t, app, path, body, contentType)

    it.each([
      ['one-statement path', 'PR', 'UA_RACE', 'SUB_RACE'],
      ['locked path (order discount plan)', 'PRD', 'UA_RACE_PLAN', 'SUB_RACE_PLAN'],
    ])(
      '%s: never take the wallet below zero, at any point of its ledger',
      async (_path, code, account, subscription) => {
        // 21.00: the twelve first reserves hold what it pays (7 × 2.70 or 9 × 2.16) and leave 2.10 or 1.56 available.
        await credit(t, 21, code, account)
        const apps = [t.app, second!.app]
        const answers: Record<string, number> = {}
        const count = (key: string) => (answers[key] = (answers[key] ?? 0) + 1)
        // Round one is the same on a busy machine: every reserve is answered before any confirm or credit, so the
        // dearer confirms then compete for what is left — the first is paid (it needs 1.30 or 1.04 more), and the
        // holds outnumber what the available balance and the four credits can pay (at most 4 or 5): some are 402.
        let reservesLeft = 12
        let reservesDone!: () => void
        const firstRound = new Promise<void>((resolve) => (reservesDone = resolve))
        const reserveAnswered = () => {
          if (--reservesLeft === 0) reservesDone()
        }
        // Twelve clients reserve 150 units and confirm 100 of them, dearer than the hold, on the other instance (60
        // when refused); four credit 1.00 meanwhile: the dearer confirms compete for what the wallet has available.
        const client = async (n: number) => {
          for (let i = 0; i < 12; i++) {
            const [app, other] = [apps[(n + i) % 2]!, apps[(n + i + 1) % 2]!]
            if (n % 4 === 3) {
              if (i === 0) await firstRound
              count(`credit ${(await credit(t, '1.00', code, account)) ? 201 : 0}`)
              continue
            }
            const held = await call(app, 'reserveCdr', TIER(subscription, 150), 'text/plain')
            count(`reserve ${held.status}`)
            if (i === 0) {
              reserveAnswered()
              await firstRound
            }
            if (held.status !== 200) continue
            const reservationId = held.body.reservationId as number
            const dearer = await call(other, 'confirmReservation', { reservationId, consumedQuantity: 100 })
            count(`confirm 100 ${dearer.status}`)
            if (dearer.status === 402) {
              const less = await call(app, 'confirmReservation', { reservationId, consumedQuantity: 60 })
              count(`confirm 60 ${less.status}`)
            }
          }
        }
        await Promise.all(Array.from({ length: 16 }, (_, n) => client(n)))
        expect(answers['confirm 100 402']).toBeGreaterThan(0)
        expect(answers['confirm 100 200']).toBeGreaterThan(0)
        expect(
          Object.keys(answers).filter(
            (k) => !/^(reserve (200|402)|confirm 100 (200|402)|confirm 60 200|credit 201)$/.test(k),
          ),
        ).toEqual([])
        expectLedgerConsistent(await ledgerCheck(t))
        // A wallet's ledger rows are written under its row lock: in id order they replay its history.
        const [history] = await rows<{ lowest: string; reserved: string; open: string }>(
          t.db.current.db,
          sql`select min(available)::text as lowest, (select reserved::text from wallet where code = ${code}) as reserved,
          (select count(*)::text from reservation r join wallet w on w.id = r.wallet_id
            where w.code = ${code} and r.status = 'OPEN') as open
        from (select sum(l.balance_delta - l.reserved_delta) over (order by l.id) as available
          from balance_ledger l join wallet w on w.id = l.wallet_id where w.code = ${code}) h`,
        )
        expect(new Decimal(history!.lowest).gte(0), `lowest available ${history!.lowest}`).toBe(true)
        expect(history).toMatchObject({ reserved: expect.stringMatching(/^0(\.0+)?$/), open: '0' })
      },
      60_000,
    )
  },
)
