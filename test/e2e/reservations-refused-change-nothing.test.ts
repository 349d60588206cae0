import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows } from '../../src/kernel/db/database.ts'
import * as repo from '../../src/modules/prepaid/prepaid.repository.ts'
import { useTestApp } from '../support/test-app.ts'
import {
  credit,
  expectLedgerConsistent,
  ledgerCheck,
  MEDIATION,
  heldArgs,
  heldTarget,
  reserve,
  seedPrepaid,
  testReport,
} from './reservations-fixtures.ts'

/**
 * The one-statement reserve and close (`reserveHeld`, `closeHeld`) decide under their row locks: a figure that moved
 * since the read, a balance that does not cover the amount, a reservation no longer OPEN or past its expiry date
 * writes nothing at all.
 */
const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })

let periodId = 0
let walletId = 0
const ids = { sellerId: 0, userAccountId: 0, subscriptionId: 0, chargeInstanceId: 0 }

/** What a reserve or close could change: the counter period's units, the wallet, reservations and ledger rows. */
async function figures() {
  const [found] = await rows<{
    units: string
    balance: string
    reserved: string
    reservations: string
    ledger: string
  }>(
    t.db.current.db,
    sql`select (select value::text from counter_period where id = ${periodId}) as units,
        (select balance::text from wallet where id = ${walletId}) as balance,
        (select reserved::text from wallet where id = ${walletId}) as reserved,
        (select count(*)::text from reservation) as reservations,
        (select count(*)::text from balance_ledger) as ledger`,
  )
  return found!
}

const held = (units: string, amount: string) => heldArgs(t, { ...ids, walletId, periodId }, clock.now(), units, amount)

beforeAll(async () => {
  await seedPrepaid(t, ['SUB_H'])
  await credit(t, '3')
  // A first CALL reservation opens the month's counter period (10 free units): it takes 2 of them.
  const target = await heldTarget(t, '2026-03-10T09:00:00;SUB_H;2;CALL;x')
  Object.assign(ids, target)
  walletId = target.walletId
  periodId = target.periodId
})

describe('the one-statement reserve', () => {
  it('writes nothing when the counter period has fewer units left than the rating took', async () => {
    const before = await figures()
    expect(before).toMatchObject({ units: '8', balance: '3', reserved: '0' })
    const outcome = await repo.reserveHeld(...held('9', '0.5'))
    expect(outcome).toEqual({ outcome: 'COUNTER_MOVED' })
    expect(await figures()).toEqual(before)
  })

  it('writes nothing when the wallet does not cover the amount, and says what is available', async () => {
    const before = await figures()
    const outcome = await repo.reserveHeld(...held('8', '3.01'))
    expect(outcome).toEqual({ outcome: 'INSUFFICIENT', available: '3' })
    expect(await figures()).toEqual(before)
  })

  it('holds the units and the amount with their ledger rows when both are there', async () => {
    const before = await figures()
    const outcome = await repo.reserveHeld(...held('8', '3'))
    expect(outcome).toMatchObject({ outcome: 'RESERVED', available: '3', freeBefore: '8' })
    expect(await figures()).toEqual({
      units: '0',
      balance: '3',
      reserved: '3',
      reservations: String(Number(before.reservations) + 1),
      ledger: String(Number(before.ledger) + 2),
    })
    expectLedgerConsistent(await ledgerCheck(t))
  })
})

describe('the one-statement close', () => {
  it('closes an OPEN reservation once, and not one past its expiry date', async () => {
    const reserved = await repo.reserveHeld(...held('0', '0'))
    expect(reserved.outcome).toBe('RESERVED')
    const id = (reserved as { id: number }).id
    const release = [{ type: 'RELEASE' as const, walletId, reservationId: id, balanceDelta: '0', reservedDelta: '0' }]
    const later = new Date(clock.now().getTime() + 60_000)
    const before = await figures()
    // At its expiry date it is no longer open to a confirm or cancel: nothing is written.
    expect(
      await repo.closeHeld(
        t.db.current.db,
        id,
        { status: 'CANCELLED', consumedQuantity: null, at: later, now: later },
        release,
        'test',
        testReport,
      ),
    ).toBe(false)
    expect(await figures()).toEqual(before)
    const now = clock.now()
    const close = { status: 'CANCELLED' as const, consumedQuantity: null, at: now, now }
    expect(await repo.closeHeld(t.db.current.db, id, close, release, 'test', testReport)).toBe(true)
    const closed = await figures()
    expect(closed.ledger).toBe(String(Number(before.ledger) + 1))
    // Again: it is CANCELLED now, nothing more is written.
    expect(await repo.closeHeld(t.db.current.db, id, close, release, 'test', testReport)).toBe(false)
    expect(await figures()).toEqual(closed)
  })

  it('answers a confirm of a closed reservation with INVALID_STATE through the API', async () => {
    await credit(t, '1')
    const answer = await reserve(t, '2026-03-10T09:05:00;SUB_H;1;SMS;x')
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const id = answer.body.reservationId as number
    const confirm = () => t.request('POST', `${MEDIATION}/confirmReservation`, { reservationId: id })
    expect((await confirm()).status).toBe(200)
    const again = await confirm()
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ status: 'FAIL', errorCode: 'INVALID_STATE' })
  })
})
