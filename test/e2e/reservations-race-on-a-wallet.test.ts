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
} from './reservations-fixtures.ts'

/**
 * Usage reservations of a subscription with a discount plan (the locked transaction path) and of one without (the
 * one-statement path) racing on one PREPAID wallet kept near empty, on two instances, with (partial) confirms, cancels
 * racing confirms and the expiry sweep (PostgreSQL only). Whatever the interleaving: no deadlock or conflict answer,
 * one winner per reservation, the wallet its credits minus its wallet operations with nothing left reserved, each
 * counter period its level minus what confirms consumed.
 */
const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })
let second: SecondInstance | undefined

beforeAll(async () => {
  if (!onPostgres) return
  await seedPrepaid(t, ['SUB_Z'])
  await created(t, 'POST', '/api/v1/discountPlans', { code: 'DP_HALF', description: 'half', applicationLimit: 0 })
  await created(t, 'POST', '/api/v1/discountPlans/DP_HALF/items', {
    code: 'HALF',
    description: '50 % off',
    discountPlanItemType: 'PERCENTAGE',
    discountValue: 50,
    accountingArticle: 'ART_DISCOUNT',
  })
  await created(t, 'PUT', '/api/v1/discountPlans/DP_HALF/activate', undefined, 200)
  await placePrepaid(t, 'SUB_P', { discountPlanCodes: ['DP_HALF'] })
  second = await secondInstance(t.db.url!, clock)
  await t.request('PUT', '/api/v1/tenantSettings', { prepaidReservationExpirationDelayinMillisec: 1000 })
})
afterAll(async () => {
  await second?.close()
})

const call = (app: App, path: string, body: unknown, contentType?: string) =>
  mediationCall(t, app, path, body, contentType)

describe.skipIf(!onPostgres)(
  'locked-path and one-statement reservations racing on one wallet (needs PostgreSQL)',
  () => {
    it('answers 200, 402 or 409 (closed already); the figures stay the ledger’s and the wallet’s operations', async () => {
      await credit(t, '60')
      const apps = [t.app, second!.app]
      const answers: Record<string, number> = {}
      const count = (key: string) => (answers[key] = (answers[key] ?? 0) + 1)
      let running = true
      const driver = (async () => {
        while (running) {
          clock.advance(200)
          await Promise.all(apps.map((app) => app.reservationExpiry.tick()))
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      })()
      const deadline = Date.now() + 3000
      const client = async (n: number) => {
        for (let i = 0; Date.now() < deadline; i++) {
          const [app, other] = [apps[(n + i) % 2]!, apps[(n + i + 1) % 2]!]
          const sub = (n + i) % 2 === 0 ? 'SUB_P' : 'SUB_Z'
          const param = (n + i) % 3 === 0 ? 'SMS' : 'CALL'
          const held = await call(
            app,
            'reserveCdr',
            `2026-03-10T09:00:00;${sub};${1 + ((n + i) % 5)};${param};x`,
            'text/plain',
          )
          count(`reserve ${held.status}`)
          if (held.status !== 200) continue
          const reservationId = held.body.reservationId as number
          const k = (n * 7 + i) % 4
          if (k === 3) {
            count('left')
            continue
          }
          const closes = await Promise.all([
            call(app, 'confirmReservation', {
              reservationId,
              consumedQuantity: k === 0 ? undefined : Math.min(1 + ((n + i) % 5), (n + i) % 3),
            }),
            ...(k === 2 ? [call(other, 'cancelReservation', { reservationId })] : []),
          ])
          // A 409 says the reservation was closed already (by the other request or the sweep), nothing else.
          for (const c of closes)
            if (c.status === 409) expect(c.body.message).toMatch(/is (EXPIRED|CONFIRMED|CANCELLED)/)
          count(
            `close ${closes
              .map((c) => c.status)
              .sort()
              .join('/')}`,
          )
        }
      }
      await Promise.all(Array.from({ length: 16 }, (_, n) => client(n)))
      running = false
      await driver
      clock.advance(2000)
      await Promise.all(apps.map((app) => app.reservationExpiry.tick()))
      expect(answers['reserve 200']).toBeGreaterThan(50)
      expect(
        Object.keys(answers).filter((k) => !/^(reserve (200|402)|left|close (200|409|200\/409|409\/409))$/.test(k)),
      ).toEqual([])
      expectLedgerConsistent(await ledgerCheck(t))
      const [w] = await rows<{ balance: string; reserved: string; charged: string; credited: string }>(
        t.db.current.db,
        sql`select w.balance::text as balance, w.reserved::text as reserved,
        (select coalesce(sum(wo.amount_with_tax), 0) from wallet_operation wo where wo.wallet_id = w.id)::text as charged,
        (select coalesce(sum(l.balance_delta), 0) from balance_ledger l where l.wallet_id = w.id and l.entry_type = 'CREDIT')::text as credited
      from wallet w where w.wallet_type = 'PREPAID'`,
      )
      expect(money(w!.reserved).toFixed()).toBe('0')
      expect(money(w!.balance).toFixed()).toBe(money(w!.credited).minus(w!.charged).toFixed())
      const unbalanced = await rows<{ id: unknown }>(
        t.db.current.db,
        sql`select r.id from reservation r join balance_ledger l on l.reservation_id = r.id and l.wallet_id is not null
        group by r.id having sum(l.reserved_delta) <> 0 or count(*) filter (where l.entry_type <> 'HOLD') > 2`,
      )
      expect(unbalanced).toEqual([])
      const counters = await rows<{ id: unknown; value: string; expected: string }>(
        t.db.current.db,
        sql`select p.id, p.value::text as value, (p.level - coalesce((select sum(least(r.consumed_quantity,
            (r.counter_period_values ->> p.id::text)::numeric)) from reservation r
          where r.status = 'CONFIRMED' and r.counter_period_values ? p.id::text), 0))::text as expected
        from counter_period p`,
      )
      for (const c of counters) expect(money(c.value).toFixed()).toBe(money(c.expected).toFixed())
    }, 60_000)
  },
)
