import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import * as repo from '../../src/modules/prepaid/prepaid.repository.ts'
import { useTestApp } from '../support/test-app.ts'
import { walletOperationsOf } from './order-fixtures.ts'
import {
  credit,
  expectLedgerConsistent,
  ledgerCheck,
  MEDIATION,
  reserve,
  reserveAs,
  seedPrepaid,
  wallet,
} from './reservations-fixtures.ts'
import { Decimal } from 'decimal.js'
import { decimalText } from '../support/decimals.ts'

const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })

const reservationRow = async (id: number) =>
  (
    await rows<Record<string, unknown>>(
      t.db.current.db,
      sql`select r.subscription_code, r.quantity::text as quantity, r.amount_with_tax::text as amount, s.code as sub
        from reservation r left join subscription s on s.id = r.subscription_id where r.id = ${id}`,
    )
  )[0]

/**
 * Adversarial checks of reads sent together (`coalescedReads`): more than 16 requests of one turn, duplicate lines and
 * ids, codes differing only in case or spaces, seller-restricted callers beside unrestricted ones, odd dates, and
 * every batched answer equal to the same read sent alone, on PGlite and on PostgreSQL.
 */
describe('reads sent together, attacked', () => {
  it('many concurrent reserves, duplicates, case variants, days', async () => {
    await seedPrepaid(t, ['SUB_A', 'SUB_B', 'SUB_C', 'sub_a'])
    await credit(t, '1000')
    const lines: string[] = []
    const subs = ['SUB_A', 'SUB_B', 'SUB_C', 'sub_a', 'Sub_A', ' SUB_B ', 'SUB_A ', 'NOPE']
    for (let i = 0; i < 50; i++) {
      const sub = subs[i % subs.length]!
      const day = i % 3 === 0 ? '2026-03-09' : i % 3 === 1 ? '2026-03-10' : '2026-02-15'
      lines.push(`${day}T09:00:00;${sub};${(i % 7) + 1};${i % 2 ? 'SMS' : 'sms'};x`)
    }
    const answers = await Promise.all(lines.map((l) => reserve(t, l)))
    for (let i = 0; i < answers.length; i++) {
      const a = answers[i]!
      const sub = subs[i % subs.length]!.trim()
      const expectedOk = ['SUB_A', 'SUB_B', 'SUB_C', 'sub_a'].includes(sub)
      expect([i, a.status], JSON.stringify(a.body)).toEqual([i, expectedOk ? 200 : 400])
      if (a.status === 200) {
        const r = await reservationRow(a.body.reservationId as number)
        expect([i, r?.sub, decimalText(r?.quantity)]).toEqual([i, sub, String((i % 7) + 1)])
        expect(decimalText(r?.amount)).toBe(decimalText(a.body.amountWithTax))
        expect(decimalText(a.body.amountWithTax)).toBe(new Decimal('0.12').times((i % 7) + 1).toString())
      }
    }
    expectLedgerConsistent(await ledgerCheck(t))
    // confirm/cancel > 16 at once, including duplicates and unknown ids
    const ids = answers.filter((a) => a.status === 200).map((a) => a.body.reservationId as number)
    const reqs = ids.flatMap((id, i) => (i % 5 === 0 ? [id, id] : [id]))
    reqs.push(999_999, Number.MAX_SAFE_INTEGER)
    const closed = await Promise.all(
      reqs.map((id, i) =>
        t.request('POST', `${MEDIATION}/${i % 2 ? 'confirmReservation' : 'cancelReservation'}`, {
          reservationId: id,
          ...(i % 2 ? { consumedQuantity: 1 } : {}),
        }),
      ),
    )
    const seen = new Map<number, number>()
    closed.forEach((c, i) => {
      const id = reqs[i]!
      if (id >= 999_999) expect(c.status).toBe(404)
      else {
        expect([200, 409]).toContain(c.status)
        if (c.status === 200) {
          seen.set(id, (seen.get(id) ?? 0) + 1)
          expect(c.body.message).toContain(String(id))
        }
      }
    })
    for (const id of ids) expect([id, seen.get(id)]).toEqual([id, 1])
    expectLedgerConsistent(await ledgerCheck(t))
    expect((await wallet(t)).reserved).toBe(0)
    // Each paid confirm's wallet operation belongs to its reservation's subscription: 1 SMS unit, 0.12 with tax.
    const confirmedBy = new Map<string, number>()
    closed.forEach((c, i) => {
      if (i % 2 === 1 && c.status === 200) {
        const at = answers.findIndex((a) => a.body.reservationId === reqs[i])
        const sub = subs[at % subs.length]!.trim()
        confirmedBy.set(sub, (confirmedBy.get(sub) ?? 0) + 1)
      }
    })
    const idOf = new Map(
      (
        await rows<{ id: string; code: string }>(t.db.current.db, sql`select id::text as id, code from subscription`)
      ).map((r) => [r.code, Number(r.id)]),
    )
    for (const sub of ['SUB_A', 'SUB_B', 'SUB_C', 'sub_a']) {
      // The query API's subscription filter ignores case: SUB_A's also lists sub_a's.
      const operations = (await walletOperationsOf(t, sub)).filter((o) => o.subscription.id === idOf.get(sub))
      expect([sub, operations.length]).toEqual([sub, confirmedBy.get(sub) ?? 0])
      for (const o of operations) expect([sub, o.quantity, o.amountWithTax]).toEqual([sub, 1, 0.12])
    }
  })

  it('seller-restricted callers batched with visible ones', async () => {
    expect((await t.request('POST', '/api/v1/sellers', { code: 'OTHER', tradingCurrency: 'EUR' })).status).toBe(201)
    const other = await t.tokenWithRoles(['billing.wallets.manage'], { sellerCodes: ['OTHER'] })
    const main = await t.tokenWithRoles(['billing.wallets.manage'], { sellerCodes: ['MAIN'] })
    const held = await Promise.all([
      reserveAs(t, other, '2026-03-10T09:00:00;SUB_A;1;SMS;x'),
      reserveAs(t, main, '2026-03-10T09:00:00;SUB_A;1;SMS;x'),
      reserveAs(t, other, '2026-03-10T09:00:00;SUB_B;1;SMS;x'),
      reserveAs(t, main, '2026-03-10T09:00:00;SUB_B;2;SMS;x'),
    ])
    expect(held.map((h) => h.status)).toEqual([400, 200, 400, 200])
    const [, a, , b] = held.map((h) => h.body.reservationId as number)
    const closed = await Promise.all([
      t.requestAs(other, 'POST', `${MEDIATION}/confirmReservation`, { reservationId: a }),
      t.requestAs(main, 'POST', `${MEDIATION}/confirmReservation`, { reservationId: b }),
      t.requestAs(other, 'POST', `${MEDIATION}/cancelReservation`, { reservationId: b }),
      t.requestAs(main, 'POST', `${MEDIATION}/cancelReservation`, { reservationId: a }),
    ])
    expect(closed.map((c) => c.status)).toEqual([404, 200, 404, 200])
  })

  it('odd line values sent together', async () => {
    const odd = [
      '0001-01-01T00:00:00;SUB_A;1;SMS;x',
      '9999-12-31T23:59:59;SUB_A;1;SMS;x',
      '1582-10-10T00:00:00;SUB_A;1;SMS;x',
      `2026-03-10T09:00:00;${'S'.repeat(4000)};1;SMS;x`,
      `2026-03-10T09:00:00;SUB_A;1;${'\\'.repeat(100)}';x`,
      '2026-03-10T09:00:00;SUB_A;1;CALL;x',
      '2026-03-10T09:00:00;SUB_A;1;SMS;x',
      '2026-03-10T09:00:00;SUB_A;1;\u{1F600};x',
    ]
    const answers = await Promise.all(odd.map((l) => reserve(t, l)))
    for (const a of answers) expect(a.status).toBeLessThan(500)
    expect(answers[6]!.status).toBe(200)
  })
  it('batched answers equal one-at-a-time answers (repository)', async () => {
    const db = t.db.current.db
    const keys: repo.UsageKey[] = []
    for (const code of ['SUB_A', 'SUB_B', 'SUB_C', 'sub_a', 'SUB_a', 'NOPE', ' SUB_A'])
      for (const param1 of ['CALL', 'SMS', 'call', '', 'CALL '])
        for (const day of ['2026-03-01', '2026-03-10', '2026-02-28', '2026-03-31', '2026-04-01'])
          keys.push({ subscriptionCode: code, param1, day })
    const batched = await Promise.all(keys.map((k) => repo.usageContextSoon(db, k)))
    const single: unknown[] = []
    for (const k of keys) single.push(await repo.usageContext(db, k))
    let i = 0
    for (const k of keys) {
      expect([k, batched[i]]).toEqual([k, single[i]])
      i++
    }
    const ids = (await rows<{ id: string }>(db, sql`select id::text as id from reservation order by id`)).map((r) =>
      Number(r.id),
    )
    const allIds = [...ids, ...ids, 0, 123456789]
    const rb = await Promise.all(allIds.map((id) => repo.reservationById(db, id, (d) => d.toISOString().slice(0, 10))))
    const rs: unknown[] = []
    for (const id of allIds) rs.push(await repo.reservationById(db, id, (d) => d.toISOString().slice(0, 10)))
    expect(rb).toEqual(rs)
    const pairs = await rows<{ s: string; c: string }>(
      db,
      sql`select s.id::text as s, ci.id::text as c from subscription s cross join charge_instance ci`,
    )
    const ub = await Promise.all(pairs.map((p) => repo.usageByIds(db, Number(p.s), Number(p.c))))
    const us: unknown[] = []
    for (const p of pairs) us.push(await repo.usageByIds(db, Number(p.s), Number(p.c)))
    expect(ub).toEqual(us)
  })
})
