import type { Caller } from '../../kernel/caller.ts'
import type { Decimal } from 'decimal.js'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { CatalogCache } from '../catalog/index.ts'
import { cancel } from './cancel.use-case.ts'
import { confirm } from './confirm.use-case.ts'
import { expireDue } from './expire.use-case.ts'
import * as repo from './prepaid.repository.ts'
import { lockedPath, type ReservationDeps, type ReservationType } from './reservation.paths.ts'
import { reserve, type ReserveAnswer } from './reserve.use-case.ts'

export { sellerVisible } from './reservation.paths.ts'
export type { ReserveAnswer } from './reserve.use-case.ts'

/**
 * Prepaid usage reservations, one use case a file: `reserve` (reserve.use-case.ts), `confirm`, `cancel` and
 * `expireDue`. Each states its change once as a pure plan (reservation.plan.ts), which the one-statement path and
 * the locked path (reservation.paths.ts) both write; the status moves are the machine's (reservation.machine.ts).
 */
export function createReservationService(deps: { db: Db; clock: Clock; catalogCache?: CatalogCache; outbox: Outbox }) {
  const context: ReservationDeps = {
    db: deps.db,
    clock: deps.clock,
    catalogCache: deps.catalogCache,
    report: repo.prepaidReport(deps.outbox),
  }
  return {
    /** Reserves one usage line (`reserve`). */
    reserve: (text: string, caller: Caller): Promise<ReserveAnswer> => reserve(context, text, caller),

    /** Confirms an OPEN usage reservation (`confirm`). */
    confirm: (id: number, consumedQuantity: Decimal | undefined, caller: Caller): Promise<string> =>
      confirm(context, id, consumedQuantity, caller),

    /** Runs `work` on an OPEN reservation of the type, locked, as a confirm (`lockedPath`): offer reservations. */
    withOpen: (
      id: number,
      caller: Caller,
      timeZone: string,
      type: ReservationType,
      work: (tx: Db, r: repo.ReservationRow) => Promise<string>,
    ): Promise<string> => lockedPath(context, id, caller, timeZone, type, 'confirm', work),

    /** Cancels an OPEN reservation (`cancel`). */
    cancel: (id: number, caller: Caller, type: ReservationType = 'USAGE'): Promise<string> =>
      cancel(context, id, caller, type),

    /** Expires the OPEN reservations due (`expireDue`). */
    expireDue: (batch = 200): Promise<number> => expireDue(context, batch),
  }
}

export type ReservationService = ReturnType<typeof createReservationService>
