import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../src/app.ts'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import { secondInstance, useTestApp, type SecondInstance } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'
import { credit, expectLedgerConsistent, ledgerCheck, mediationCall, seedPrepaid } from './reservations-fixtures.ts'

/**
 * Reserves, confirms and cancels racing on one counter period kept near zero, on two instances (PostgreSQL only):
 * one-statement reserves then often wait for a period's lock while a close gives units back. Every answer is one the
 * API documents (no 400 from a check constraint: see `ledgerQueries`), each reservation is closed once, and the
 * figures stay those of the ledger.
 */
const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })
let second: SecondInstance | undefined

beforeAll(async () => {
  if (!onPostgres) return
  await seedPrepaid(t, ['SUB_Z'])
  second = await secondInstance(t.db.url!, clock)
})
afterAll(async () => {
  await second?.close()
})

const call = (app: App, path: string, body: unknown, contentType?: string) =>
  mediationCall(t, app, path, body, contentType)

describe.skipIf(!onPostgres)(
  'reserves, confirms and cancels racing on one counter period near zero (needs PostgreSQL)',
  () => {
    it('answers 200 or 402 to every reserve, closes each reservation once, and the figures stay the ledger’s', async () => {
      await credit(t, '1000')
      const apps = [t.app, second!.app]
      const answers: Record<string, number> = {}
      const count = (key: string) => (answers[key] = (answers[key] ?? 0) + 1)
      const deadline = Date.now() + 3000
      const client = async (n: number) => {
        for (let i = 0; Date.now() < deadline; i++) {
          const [app, other] = [apps[(n + i) % 2]!, apps[(n + i + 1) % 2]!]
          const line = `2026-03-10T09:00:00;SUB_Z;${1 + ((n + i) % 4)};CALL;x`
          const held = await call(app, 'reserveCdr', line, 'text/plain')
          count(`reserve ${held.status}`)
          if (held.status !== 200) continue
          const reservationId = held.body.reservationId as number
          if ((n + i) % 3 === 0) {
            // A (partial) confirm and a cancel on the other instance: exactly one wins.
            const closes = await Promise.all([
              call(app, 'confirmReservation', { reservationId, consumedQuantity: (n + i) % 2 }),
              call(other, 'cancelReservation', { reservationId }),
            ])
            count(
              `race ${closes
                .map((c) => c.status)
                .sort()
                .join('/')}`,
            )
          } else count(`cancel ${(await call(other, 'cancelReservation', { reservationId })).status}`)
        }
      }
      await Promise.all(Array.from({ length: 16 }, (_, n) => client(n)))
      expect(answers['reserve 200']).toBeGreaterThan(100)
      expect(Object.keys(answers).filter((k) => !/^(reserve (200|402)|race 200\/409|cancel 200)$/.test(k))).toEqual([])
      expectLedgerConsistent(await ledgerCheck(t))
      // The period: its level minus the free units confirmed reservations consumed, nothing held.
      const [period] = await rows<{ value: string; expected: string; open: string }>(
        t.db.current.db,
        sql`select p.value::text as value, (p.level - coalesce((select sum(least(r.consumed_quantity,
            (r.counter_period_values ->> p.id::text)::numeric)) from reservation r
          where r.status = 'CONFIRMED' and r.counter_period_values ? p.id::text), 0))::text as expected,
          (select count(*) from reservation where status = 'OPEN')::text as open
        from counter_period p`,
      )
      expect(period).toEqual({ value: period!.expected, expected: period!.expected, open: '0' })
    }, 30_000)
  },
)
