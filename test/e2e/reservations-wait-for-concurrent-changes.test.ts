import { sql, type SQL } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { openPostgres, rows, type Database, type Db } from '../../src/kernel/db/database.ts'
import { pgErrorOf } from '../../src/kernel/db/database-errors.ts'
import * as repo from '../../src/modules/prepaid/prepaid.repository.ts'
import { useTestApp } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'
import {
  credit,
  expectLedgerConsistent,
  heldArgs,
  heldTarget,
  ledgerCheck,
  reserve,
  seedPrepaid,
  testReport,
} from './reservations-fixtures.ts'
import { change, minus } from '../support/decimals.ts'

/**
 * The one-statement reserve and close (`reserveHeld`, `closeHeld`) against another transaction holding one of their
 * rows (PostgreSQL only: PGlite runs one statement at a time). While blocked they already hold the rows before it in
 * the lock order (reservation, counter periods, wallet) and none after it; once the other transaction commits, they
 * decide from, and write on top of, what it committed (READ COMMITTED re-reads a row it waited for).
 */
const clock = new FakeClock('2026-03-10T12:00:00.000Z')
const t = useTestApp({ clock })

let periodId = 0
let walletId = 0
const ids = { sellerId: 0, userAccountId: 0, subscriptionId: 0, chargeInstanceId: 0 }
let other: Database | undefined

async function figures() {
  const [found] = await rows<{ units: string; balance: string; reserved: string }>(
    t.db.current.db,
    sql`select (select value::text from counter_period where id = ${periodId}) as units,
        (select balance::text from wallet where id = ${walletId}) as balance,
        (select reserved::text from wallet where id = ${walletId}) as reserved`,
  )
  return found!
}

const held = (units: string, amount: string) => heldArgs(t, { ...ids, walletId, periodId }, clock.now(), units, amount)

/**
 * A transaction on another connection that runs `work` and then waits: `finish(true)` commits it, `finish(false)`
 * rolls it back.
 */
async function holding(work: (tx: Db) => Promise<void>) {
  let finish!: (commit: boolean) => void
  const decided = new Promise<boolean>((resolve) => (finish = resolve))
  let ready!: () => void
  const started = new Promise<void>((resolve) => (ready = resolve))
  const done = other!.db
    .transaction(async (tx) => {
      await work(tx)
      ready()
      if (!(await decided)) tx.rollback()
    })
    .catch((error: unknown) => {
      if ((error as Error).name !== 'TransactionRollbackError') throw error
    })
  await started
  return { finish, done }
}

/** Waits until a statement of this database waits for a row lock. */
async function blocked(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const [found] = await rows<{ n: string }>(
      other!.db,
      sql`select count(*)::text as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`,
    )
    if (found!.n !== '0') return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('no statement waits for a lock')
}

/** Whether another transaction holds a row lock on the row `lock` selects `for update nowait`. */
async function lockedElsewhere(lock: SQL): Promise<boolean> {
  try {
    await other!.db.transaction(async (tx) => {
      await tx.execute(lock)
    })
    return false
  } catch (error) {
    if (pgErrorOf(error)?.code === '55P03') return true
    throw error
  }
}
const periodLocked = () => lockedElsewhere(sql`select id from counter_period where id = ${periodId} for update nowait`)
const walletLocked = () => lockedElsewhere(sql`select id from wallet where id = ${walletId} for update nowait`)
const reservationLocked = (id: number) =>
  lockedElsewhere(sql`select id from reservation where id = ${id} for update nowait`)

/** What another transaction writes on the period or wallet, as the ledger does (a row and its figure). */
const ledger = (tx: Db, entry: repo.LedgerEntry) => repo.applyLedger(tx, [entry], 'other', testReport)

beforeAll(async () => {
  if (!onPostgres) return
  other = openPostgres(t.db.url!, { max: 3 })
  await seedPrepaid(t, ['SUB_L'])
  await credit(t, '10')
  const target = await heldTarget(t, '2026-03-10T09:00:00;SUB_L;1;CALL;x')
  Object.assign(ids, target)
  walletId = target.walletId
  periodId = target.periodId
})

afterAll(async () => {
  await other?.close()
})

describe.skipIf(!onPostgres)('the one-statement reserve against another transaction (needs PostgreSQL)', () => {
  it('waiting for the wallet, it holds the counter period already; it writes on top of the credit it waited for', async () => {
    const before = await figures()
    const credit = await holding(async (tx) => {
      await repo.lockWallets(tx, [walletId])
      await ledger(tx, { type: 'CREDIT', walletId, balanceDelta: '5' })
    })
    const outcome = repo.reserveHeld(...held('1', '12'))
    await blocked()
    expect(await periodLocked()).toBe(true)
    credit.finish(true)
    await credit.done
    // 12 needs the credit: it was decided from the wallet as committed after the wait, and the credit is kept.
    expect(await outcome).toMatchObject({ outcome: 'RESERVED', available: '15' })
    const after = await figures()
    expect(change(before.units, after.units)).toBe('-1')
    expect(change(before.balance, after.balance)).toBe('5')
    expect(change(before.reserved, after.reserved)).toBe('12')
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('waiting for the counter period, it holds nothing else; units taken meanwhile answer COUNTER_MOVED', async () => {
    const before = await figures()
    const take = await holding(async (tx) => {
      await repo.lockCounterPeriods(tx, [periodId])
      await ledger(tx, { type: 'HOLD', counterPeriodId: periodId, balanceDelta: '-7' })
    })
    // It counts on 3 of the 8 units left: after the other take, 1 is.
    const outcome = repo.reserveHeld(...held('3', '0.5'))
    await blocked()
    expect(await walletLocked()).toBe(false)
    take.finish(true)
    await take.done
    expect(await outcome).toEqual({ outcome: 'COUNTER_MOVED' })
    expect(await figures()).toEqual({ ...before, units: minus(before.units, 7) })
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('takes units given back while it waited: its write starts from the figure after the wait', async () => {
    // The rating counted on 3 units; since then the period fell to 1 and a release of 7 is under way: 8 once it
    // commits. The write must start from those 8, not from the 1 its statement's snapshot saw (1 − 3 would break
    // the period's check constraint before PostgreSQL re-reads the row it waited for).
    const start = await figures()
    const taken = await holding(async (tx) => {
      await repo.lockCounterPeriods(tx, [periodId])
      await ledger(tx, { type: 'HOLD', counterPeriodId: periodId, balanceDelta: minus(1, start.units) })
    })
    taken.finish(true)
    await taken.done
    expect((await figures()).units).toBe('1')
    const release = await holding(async (tx) => {
      await repo.lockCounterPeriods(tx, [periodId])
      await ledger(tx, { type: 'RELEASE', counterPeriodId: periodId, balanceDelta: '7' })
    })
    const outcome = repo.reserveHeld(...held('3', '0.5'))
    await blocked()
    release.finish(true)
    await release.done
    expect(await outcome).toMatchObject({ outcome: 'RESERVED', freeBefore: '8' })
    const after = await figures()
    expect(after.units).toBe('5')
    expect(change(start.reserved, after.reserved)).toBe('0.5')
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('decides on the wallet as committed after its wait: a hold meanwhile makes it INSUFFICIENT', async () => {
    const before = await figures()
    const available = minus(before.balance, before.reserved)
    const hold = await holding(async (tx) => {
      await repo.lockWallets(tx, [walletId])
      await ledger(tx, { type: 'HOLD', walletId, balanceDelta: '0', reservedDelta: '2' })
    })
    const outcome = repo.reserveHeld(...held('0', minus(available, 1)))
    await blocked()
    hold.finish(true)
    await hold.done
    expect(await outcome).toEqual({ outcome: 'INSUFFICIENT', available: minus(available, 2) })
    const after = await figures()
    expect(change(before.reserved, after.reserved)).toBe('2')
    expect(after.balance).toBe(before.balance)
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('chosen as a deadlock victim, a reserve through the API reads again and is answered', async () => {
    const before = await figures()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let holdingWallet!: () => void
    const walletHeld = new Promise<void>((resolve) => (holdingWallet = resolve))
    // Locks the wallet, then (once the reserve waits for it, holding the period) the period: a deadlock, which the
    // reserve's backend detects first (this transaction's deadlock_timeout is 10 s, the server's 1 s).
    const cycle = other!.db.transaction(async (tx) => {
      await tx.execute(sql`set local deadlock_timeout = '10s'`)
      await repo.lockWallets(tx, [walletId])
      holdingWallet()
      await gate
      await repo.lockCounterPeriods(tx, [periodId])
    })
    await walletHeld
    const answer = reserve(t, '2026-03-10T09:10:00;SUB_L;1;CALL;x')
    await blocked()
    release()
    await cycle
    const reserved = await answer
    expect(reserved.status, JSON.stringify(reserved.body)).toBe(200)
    expect(change(before.units, (await figures()).units)).toBe('-1')
    expectLedgerConsistent(await ledgerCheck(t))
  })
})

describe.skipIf(!onPostgres)('the one-statement close against another transaction (needs PostgreSQL)', () => {
  async function openReservation(units: string, amount: string): Promise<number> {
    const reserved = await repo.reserveHeld(...held(units, amount))
    expect(reserved.outcome).toBe('RESERVED')
    return (reserved as { id: number }).id
  }
  const release = (id: number, units: string, amount: string): repo.LedgerEntry[] => [
    { type: 'RELEASE', counterPeriodId: periodId, reservationId: id, balanceDelta: units },
    { type: 'RELEASE', walletId, reservationId: id, balanceDelta: '0', reservedDelta: `-${amount}` },
  ]
  const cancel = (id: number, entries: repo.LedgerEntry[]) =>
    repo.closeHeld(
      t.db.current.db,
      id,
      { status: 'CANCELLED', consumedQuantity: null, at: clock.now(), now: clock.now() },
      entries,
      'test',
      testReport,
    )

  it('waiting for the counter period, it holds the reservation and not the wallet', async () => {
    const id = await openReservation('1', '0.25')
    const before = await figures()
    const take = await holding(async (tx) => {
      await repo.lockCounterPeriods(tx, [periodId])
      await ledger(tx, { type: 'HOLD', counterPeriodId: periodId, balanceDelta: '-1' })
    })
    const closed = cancel(id, release(id, '1', '0.25'))
    await blocked()
    expect(await reservationLocked(id)).toBe(true)
    expect(await walletLocked()).toBe(false)
    take.finish(true)
    await take.done
    expect(await closed).toBe(true)
    // The other take and this release both count.
    const after = await figures()
    expect(after.units).toBe(before.units)
    expect(after.balance).toBe(before.balance)
    expect(change(before.reserved, after.reserved)).toBe('-0.25')
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('with no counter units to give back, waiting for the wallet, it holds the reservation already', async () => {
    const id = await openReservation('0', '0.25')
    const before = await figures()
    const credit = await holding(async (tx) => {
      await repo.lockWallets(tx, [walletId])
      await ledger(tx, { type: 'CREDIT', walletId, balanceDelta: '1' })
    })
    const closed = cancel(id, release(id, '0', '0.25').slice(1))
    await blocked()
    expect(await reservationLocked(id)).toBe(true)
    credit.finish(true)
    await credit.done
    expect(await closed).toBe(true)
    const after = await figures()
    expect(change(before.balance, after.balance)).toBe('1')
    expect(change(before.reserved, after.reserved)).toBe('-0.25')
    expectLedgerConsistent(await ledgerCheck(t))
  })

  it('waiting for the reservation a locked close holds, it writes nothing once that one committed', async () => {
    const id = await openReservation('1', '0.25')
    const lockedClose = await holding(async (tx) => {
      await tx.execute(sql`select id from reservation where id = ${id} for update`)
      await repo.lockCounterPeriods(tx, [periodId])
      await repo.lockWallets(tx, [walletId])
      await repo.applyLedger(tx, release(id, '1', '0.25'), 'other', testReport)
      await repo.closeReservation(
        tx,
        id,
        { status: 'EXPIRED', consumedQuantity: null, at: clock.now() },
        'other',
        testReport,
      )
    })
    const before = await figures()
    const closed = cancel(id, release(id, '1', '0.25'))
    await blocked()
    lockedClose.finish(true)
    await lockedClose.done
    expect(await closed).toBe(false)
    const after = await figures()
    expect(change(before.units, after.units)).toBe('1')
    expect(change(before.reserved, after.reserved)).toBe('-0.25')
    const [status] = await rows<{ status: string }>(
      t.db.current.db,
      sql`select status from reservation where id = ${id}`,
    )
    expect(status).toEqual({ status: 'EXPIRED' })
    expectLedgerConsistent(await ledgerCheck(t))
  })
})
