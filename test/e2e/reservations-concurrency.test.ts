import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../src/app.ts'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import { money } from '../../src/kernel/money.ts'
import { secondInstance, useTestApp, type SecondInstance } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'
import { created } from './catalog-fixtures.ts'
import {
  credit,
  expectLedgerConsistent,
  ledgerCheck,
  mediationCall,
  placePrepaid,
  seedPrepaid,
  wallet,
} from './reservations-fixtures.ts'
import { minus } from '../support/decimals.ts'

const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })

/** The accounts of the three wallets the workload shares, each with one subscription. */
const ACCOUNTS = [
  ['UA_1', 'SUB_A'],
  ['UA_1B', 'SUB_B'],
  ['UA_2', 'SUB_C'],
] as const
const INITIAL = '5000'
/** How long the 32 clients run: 15 s in CI, longer for `npm run soak` (RESERVATION_SOAK_SEC=300). */
const RUN_MS = Number(process.env.RESERVATION_SOAK_SEC ?? 15) * 1000

beforeAll(async () => {
  await seedPrepaid(t, ['SUB_A', 'SUB_R'])
  for (const [account, subscription] of ACCOUNTS.slice(1)) {
    await placePrepaid(t, subscription, {
      userAccountCode: account,
      billingAccountCode: account === 'UA_2' ? 'BA_2' : 'BA_1',
    })
    await created(t, 'POST', `/api/v1/userAccounts/${account}/wallets`, { code: 'PP', walletType: 'PREPAID' })
  }
})

const reserveOn = (app: App, line: string) => mediationCall(t, app, 'reserveCdr', line, 'text/plain')
const confirmOn = (app: App, reservationId: number, consumedQuantity?: number) =>
  mediationCall(t, app, 'confirmReservation', { reservationId, consumedQuantity })
const cancelOn = (app: App, reservationId: number) => mediationCall(t, app, 'cancelReservation', { reservationId })

describe('reservations racing on one instance', () => {
  it('two concurrent reservations against a balance that covers one: one is held, the other refused', async () => {
    await credit(t, '0.6')
    // 5 SMS × 0.10 + 20 % = 0.60 each: the wallet covers exactly one.
    const line = '2026-03-10T09:00:00;SUB_R;5;SMS;x'
    const answers = await Promise.all([reserveOn(t.app, line), reserveOn(t.app, line)])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 402])
    expect(await wallet(t)).toMatchObject({ balance: 0.6, reserved: 0.6, available: 0 })
    const held = answers.find((a) => a.status === 200)!.body.reservationId as number
    // Confirm, cancel and the expiry sweep race on it: exactly one confirm or cancel wins, the other is refused.
    const [confirmed, cancelled, swept] = await Promise.all([
      confirmOn(t.app, held),
      cancelOn(t.app, held),
      t.app.reservationExpiry.tick(),
    ])
    expect([confirmed.status, cancelled.status].sort()).toEqual([200, 409])
    expect(swept).toBe(0)
    const after = await wallet(t)
    expect(after.reserved).toBe(0)
    expect(after.balance).toBe(confirmed.status === 200 ? 0 : 0.6)
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('confirm, cancel and the sweep racing on a reservation past its expiry: it expires, once', async () => {
    const before = await wallet(t)
    await credit(t, '0.6')
    const held = await reserveOn(t.app, '2026-03-10T09:00:00;SUB_R;5;SMS;x')
    expect(held.status).toBe(200)
    clock.advance(300_000)
    const [confirmed, cancelled, swept, sweptToo] = await Promise.all([
      confirmOn(t.app, held.body.reservationId),
      cancelOn(t.app, held.body.reservationId),
      t.app.reservationExpiry.tick(),
      t.app.reservationExpiry.tick(),
    ])
    expect([confirmed.status, cancelled.status]).toEqual([409, 409])
    expect(swept + sweptToo).toBeLessThanOrEqual(1)
    const status = await rows<{ status: string }>(
      t.db.current.db,
      sql`select status from reservation where id = ${held.body.reservationId}`,
    )
    expect(status).toEqual([{ status: 'EXPIRED' }])
    expect(await wallet(t)).toMatchObject({ balance: (before.balance as number) + 0.6, reserved: 0 })
    expectLedgerConsistent(await ledgerCheck(t))
  })
})

describe('reservations racing on a discount plan’s last application', () => {
  it('one reservation gets it, the others hold the full amount; cancelled, it goes to the next; confirms charge what was held', async () => {
    // DP_ONCE: 50 % off one usage line per subscription (applicationLimit 1), on SUB_ONCE's order.
    await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_ONCE', description: 'once', applicationLimit: 1 })
    await created(t, 'POST', '/api/v1/discountPlans/DP_ONCE/items', {
      code: 'ONCE50',
      description: '50 % off',
      discountPlanItemType: 'PERCENTAGE',
      discountValue: 50,
      accountingArticle: 'ART_DISCOUNT',
    })
    await created(t, 'PUT', '/api/v1/discountPlans/DP_ONCE/activate', undefined, 200)
    await placePrepaid(t, 'SUB_ONCE', { discountPlanCodes: ['DP_ONCE'] })
    await credit(t, 10)
    const before = await wallet(t)
    const planState = async () =>
      (
        await rows<{ state: { applied: Record<string, number> } }>(
          t.db.current.db,
          sql`select dpi.state from discount_plan_instance dpi join discount_plan dp on dp.id = dpi.discount_plan_id
            where dp.code = 'DP_ONCE'`,
        )
      )[0]!.state.applied
    // 5 SMS × 0.10 = 0.50: with the discount 0.25 + 20 % = 0.30, without 0.60.
    const line = '2026-03-10T09:00:00;SUB_ONCE;5;SMS;x'
    const held = await Promise.all([1, 2, 3, 4].map(() => reserveOn(t.app, line)))
    expect(held.map((h) => h.status)).toEqual([200, 200, 200, 200])
    expect(held.map((h) => h.body.amountWithTax as number).sort()).toEqual([0.3, 0.6, 0.6, 0.6])
    expect(await planState()).toEqual({ SUB_ONCE: 1 })

    // Cancelled, the discounted reservation gives its application back: the next reservation gets it.
    const discounted = held.find((h) => h.body.amountWithTax === 0.3)!.body.reservationId as number
    expect((await cancelOn(t.app, discounted)).status).toBe(200)
    expect(await planState()).toEqual({})
    const [next, after] = await Promise.all([reserveOn(t.app, line), reserveOn(t.app, line)])
    expect([next.body.amountWithTax, after.body.amountWithTax].sort()).toEqual([0.3, 0.6])

    // Confirmed (racing), each is charged exactly what it held: 0.30 + 4 × 0.60 in all, nothing left reserved.
    const open = [...held.filter((h) => h.body.reservationId !== discounted), next, after]
    const confirmed = await Promise.all(open.map((h) => confirmOn(t.app, h.body.reservationId)))
    expect(confirmed.map((c) => c.status)).toEqual([200, 200, 200, 200, 200])
    expect(confirmed.map((c) => c.body.message as string).filter((m) => m.endsWith(' 0.3 charged'))).toHaveLength(1)
    expect(await planState()).toEqual({ SUB_ONCE: 1 })
    const account = await wallet(t)
    expect(minus(before.balance, account.balance)).toBe('2.7')
    expect(account.reserved).toBe(before.reserved)
    expectLedgerConsistent(await ledgerCheck(t))
  })
})

describe.skipIf(!onPostgres)('32 clients on two instances (needs PostgreSQL)', () => {
  let second: SecondInstance | undefined

  beforeAll(async () => {
    second = await secondInstance(t.db.url!, clock)
    await t.request('PUT', '/api/v1/tenantSettings', { prepaidReservationExpirationDelayinMillisec: 1000 })
    for (const [account] of ACCOUNTS) await credit(t, INITIAL, 'PP', account)
  })
  afterAll(async () => {
    await second?.close()
  })

  it(
    'reserve, confirm, cancel and let expire: balances and counters end at the initial values minus what was confirmed',
    async () => {
      const apps = [t.app, second!.app]
      let seed = 17
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648
        return seed % n
      }
      const counts = { reserved: 0, refused: 0, confirmed: 0, cancelled: 0, left: 0, repeatRefused: 0 }
      let running = true
      // The clock moves 250 ms at a time and both instances sweep: reservations left alone expire after 1 s.
      const driver = (async () => {
        while (running) {
          clock.advance(250)
          await Promise.all(apps.map((app) => app.reservationExpiry.tick()))
          await new Promise((resolve) => setImmediate(resolve))
        }
      })()
      const deadline = Date.now() + RUN_MS
      const client = async (n: number) => {
        for (let i = 0; Date.now() < deadline; i++) {
          const app = apps[(n + i) % 2]!
          const [, subscription] = ACCOUNTS[random(3)]!
          const quantity = 1 + random(6)
          const param = random(2) === 0 ? 'CALL' : 'SMS'
          const held = await reserveOn(app, `2026-03-10T09:00:00;${subscription};${quantity};${param};x`)
          if (held.status === 402) {
            counts.refused++
            continue
          }
          expect(held.status, JSON.stringify(held.body)).toBe(200)
          counts.reserved++
          const id = held.body.reservationId as number
          const other = apps[(n + i + 1) % 2]!
          const action = random(4)
          if (action === 0 || action === 1) {
            const partial = action === 1 ? random(quantity + 1) : undefined
            const answer = await confirmOn(app, id, partial)
            if (answer.status === 200) {
              counts.confirmed++
              const again = await confirmOn(other, id)
              expect(again.status).toBe(409)
              counts.repeatRefused++
            } else expect(answer.body.message).toContain('EXPIRED')
          } else if (action === 2) {
            const answer = await cancelOn(other, id)
            if (answer.status === 200) {
              counts.cancelled++
              expect((await cancelOn(app, id)).status).toBe(409)
              counts.repeatRefused++
            } else expect(answer.body.message).toContain('EXPIRED')
          } else counts.left++
        }
      }
      await Promise.all(Array.from({ length: 32 }, (_, n) => client(n)))
      running = false
      await driver
      clock.advance(2000)
      await Promise.all(apps.map((app) => app.reservationExpiry.tick()))

      expect(counts.reserved).toBeGreaterThan(100)
      expect(counts.confirmed).toBeGreaterThan(10)
      const open = await rows<{ n: string }>(
        t.db.current.db,
        sql`select count(*)::text as n from reservation where status = 'OPEN'`,
      )
      expect(open[0]!.n).toBe('0')
      expectLedgerConsistent(await ledgerCheck(t))

      // Each wallet: its credits minus the wallet operations of its confirmed reservations, nothing reserved.
      const wallets = await rows<{
        code: string
        balance: string
        reserved: string
        charged: string
        credited: string
      }>(
        t.db.current.db,
        sql`select ua.code, w.balance::text as balance, w.reserved::text as reserved,
          (select coalesce(sum(wo.amount_with_tax), 0) from wallet_operation wo where wo.wallet_id = w.id)::text as charged,
          (select coalesce(sum(l.balance_delta), 0) from balance_ledger l where l.wallet_id = w.id and l.entry_type = 'CREDIT')::text as credited
        from wallet w join user_account ua on ua.id = w.user_account_id
        where w.wallet_type = 'PREPAID' and ua.code = any(${`{${ACCOUNTS.map(([a]) => a).join(',')}}`}::text[])`,
      )
      expect(wallets).toHaveLength(3)
      for (const w of wallets) {
        expect(money(w.reserved).toFixed(), w.code).toBe('0')
        expect(money(w.balance).toFixed(), w.code).toBe(money(w.credited).minus(w.charged).toFixed())
        expect(money(w.balance).gte(0), w.code).toBe(true)
      }
      // Each counter period: its level minus the free units its confirmed reservations consumed.
      const counters = await rows<{ id: unknown; value: string; level: string; consumed: string }>(
        t.db.current.db,
        sql`select p.id, p.value::text as value, p.level::text as level,
          (select coalesce(sum(least(r.consumed_quantity, (r.counter_period_values ->> p.id::text)::numeric)), 0)
            from reservation r where r.status = 'CONFIRMED' and r.counter_period_values ? p.id::text)::text as consumed
        from counter_period p`,
      )
      for (const c of counters) {
        expect(money(c.value).toFixed(), `counter ${String(c.id)}`).toBe(money(c.level).minus(c.consumed).toFixed())
      }
      // No reservation closed twice: the wallet rows of each give back exactly what it held.
      const unbalanced = await rows<{ id: unknown }>(
        t.db.current.db,
        sql`select r.id from reservation r join balance_ledger l on l.reservation_id = r.id and l.wallet_id is not null
        group by r.id having sum(l.reserved_delta) <> 0 or count(*) filter (where l.entry_type <> 'HOLD') > 2`,
      )
      expect(unbalanced).toEqual([])
    },
    RUN_MS + 120_000,
  )
})
