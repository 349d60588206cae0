import type { Caller } from '../../kernel/caller.ts'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { unlessVictim, withTransaction } from '../../kernel/db/transaction.ts'
import { sellerCodeVisible, type SellerCodes } from '../../kernel/model/row-security.ts'
import { sellerCodeById } from '../accounts/index.ts'
import type { CatalogCache } from '../catalog/index.ts'
import { dayIn, giveBackUsage, type UsageOperation } from '../ordering/index.ts'
import * as repo from './prepaid.repository.ts'
import { checkMove, moveRefused, releasePlan, reservationNotFound, type ClosePlan } from './reservation.plan.ts'

/**
 * What the reservation use cases share: the two paths a close runs on (one statement, or a transaction under row
 * locks) and the usage a confirm bills (rated and billed by ordering). Every balance and counter change runs under row locks taken in
 * one order — the reservation, then its counter periods by id, then its wallet — and decides from the figures read
 * under those locks, so two requests (or instances) racing on one wallet, counter or reservation serialize and each
 * sees the other's result.
 */

export type ReservationType = 'USAGE' | 'OFFER'

export interface ReservationDeps {
  readonly db: Db
  readonly clock: Clock
  readonly catalogCache?: CatalogCache | undefined
  /** Every write of a reservation's status carries its event, in the same statement. */
  readonly report: repo.PrepaidReport
}

/** The seller of a record is one the caller may see (row-level security; unrestricted callers see all). */
export async function sellerVisible(db: Db, sellerId: number, sellerCodes: SellerCodes): Promise<boolean> {
  if (sellerCodes === null) return true
  const code = await sellerCodeById(db, sellerId)
  return code !== undefined && sellerCodeVisible(code, sellerCodes)
}

/**
 * The usage a confirmed usage reservation bills: its subscription and charge instance, on its usage day, in its
 * wallet (else the charge instance's).
 */
export function billedUsage(r: repo.ReservationRow, sub: repo.SubscriptionRow, charge: repo.UsageChargeRow) {
  return { sub, charge, walletId: r.walletId ?? charge.walletId, day: r.usageDay! }
}

/** The locked path of a close: the plan's ledger rows applied and the reservation closed, in `tx`. */
export async function runLocked(
  deps: ReservationDeps,
  tx: Db,
  r: repo.ReservationRow,
  plan: ClosePlan,
  actor: string,
): Promise<void> {
  await repo.applyLedger(tx, plan.entries, actor, deps.report)
  await repo.closeReservation(
    tx,
    r.id,
    { status: plan.status, consumedQuantity: plan.consumedQuantity, at: deps.clock.now() },
    actor,
    deps.report,
  )
}

/**
 * Gives back everything OPEN reservations (locked by the caller) hold — discount plan applications, counter units
 * and the held amount — and closes them (`releasePlan`: CANCELLED or EXPIRED). Orders, counter periods and wallets
 * are locked here, in the lock order.
 */
export async function releaseAll(
  deps: ReservationDeps,
  tx: Db,
  reservations: readonly repo.ReservationRow[],
  trigger: 'cancel' | 'expire',
  actor: string,
): Promise<void> {
  await giveBackUsage(
    tx,
    reservations.map((r) => r.discountTaken),
    actor,
  )
  const periodIds = [...new Set(reservations.flatMap((r) => Object.keys(r.counterPeriodValues).map(Number)))]
  await repo.lockCounterPeriods(
    tx,
    periodIds.sort((a, b) => a - b),
  )
  const walletIds = [...new Set(reservations.flatMap((r) => (r.walletId === null ? [] : [r.walletId])))]
  await repo.lockWallets(
    tx,
    walletIds.sort((a, b) => a - b),
  )
  const plans = reservations.map((r) => releasePlan(r, trigger))
  await repo.applyLedger(
    tx,
    plans.flatMap((p) => p.entries),
    actor,
    deps.report,
  )
  for (const [i, r] of reservations.entries()) {
    const plan = plans[i]!
    await repo.closeReservation(
      tx,
      r.id,
      { status: plan.status, consumedQuantity: plan.consumedQuantity, at: deps.clock.now() },
      actor,
      deps.report,
    )
  }
}

/**
 * The locked path: locks a reservation of the type the caller may see, checks the machine allows `trigger` from
 * its status, and runs `work` on it in the transaction. One past its expiry date is expired here (the sweep would
 * do the same a moment later) and the answer is then INVALID_STATE: the expiry wins whatever the sweep's timing.
 */
export async function lockedPath(
  deps: ReservationDeps,
  id: number,
  caller: Caller,
  timeZone: string,
  type: ReservationType,
  trigger: 'confirm' | 'cancel',
  work: (tx: Db, r: repo.ReservationRow) => Promise<string>,
): Promise<string> {
  const outcome = await withTransaction(deps.db, async (tx) => {
    const r = await repo.lockReservation(tx, id, (d) => dayIn(d, timeZone))
    // Usage and offer reservations have their own routes: one of the other kind is not found on these.
    if (!r || r.type !== type || !(await sellerVisible(tx, r.sellerId, caller.sellerCodes))) {
      throw reservationNotFound(id)
    }
    checkMove(r, trigger)
    if (r.expiryDate.getTime() <= deps.clock.now().getTime()) {
      await releaseAll(deps, tx, [r], 'expire', caller.username)
      return { expired: true as const }
    }
    return { expired: false as const, message: await work(tx, r) }
  })
  if (outcome.expired) throw moveRefused(id, 'EXPIRED', trigger)
  return outcome.message
}

/** A close as the one-statement path writes it: the plan, and what a confirm adds to it. */
export interface HeldClose extends ClosePlan {
  readonly status: 'CONFIRMED' | 'CANCELLED'
  /** The wallet operations of a confirm's consumed part. */
  readonly operations?: UsageOperation[]
  /** What a confirm debits beyond the hold: the wallet's available balance must cover it (`closeHeld`). */
  readonly beyondHold?: { walletId: number; amount: string }
}

/**
 * The one-statement path of a close, without a transaction (`closeHeld`), when what it writes depends only on the
 * reservation and the published catalog: `plan` gives the close, or undefined when it needs the locked path
 * (discount plan states to rate the consumed part with). Undefined too when the reservation holds discount plan
 * states, is past its expiry date, or changed before the write: the locked path then decides (and expires it when
 * due). Not found and a refused move are answered from the read: a reservation's type and seller never change, and
 * a status the machine allows no move from is final.
 */
export async function heldPath(
  deps: ReservationDeps,
  id: number,
  caller: Caller,
  timeZone: string,
  type: ReservationType,
  trigger: 'confirm' | 'cancel',
  plan: (r: repo.ReservationRow) => Promise<HeldClose | undefined>,
): Promise<string | undefined> {
  const { db, clock } = deps
  const r = await repo.reservationById(db, id, (d) => dayIn(d, timeZone))
  if (!r || r.type !== type || !sellerCodeVisible(r.sellerCode, caller.sellerCodes)) throw reservationNotFound(id)
  checkMove(r, trigger)
  const now = clock.now()
  if (r.expiryDate.getTime() <= now.getTime() || Object.keys(r.discountTaken).length > 0) return undefined
  const close = await plan(r)
  if (!close) return undefined
  const closed = await unlessVictim(
    repo.closeHeld(
      db,
      r.id,
      {
        status: close.status,
        consumedQuantity: close.consumedQuantity,
        at: now,
        now,
        ...(close.beyondHold ? { beyondHold: close.beyondHold } : {}),
      },
      close.entries,
      caller.username,
      deps.report,
      close.operations,
    ),
    false,
  )
  return closed ? close.message : undefined
}
