import { withTransaction } from '../../kernel/db/transaction.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import { dayIn } from '../ordering/index.ts'
import * as repo from './prepaid.repository.ts'
import { releaseAll, type ReservationDeps } from './reservation.paths.ts'

/**
 * Expires the OPEN reservations due at the clock's now, a batch per transaction, giving back what each held
 * (`releasePlan`). Rows held by a confirm, a cancel or another instance's sweep are skipped (they are closed or will
 * be claimed next time). Returns how many expired.
 */
export async function expireDue(deps: ReservationDeps, batch = 200): Promise<number> {
  const { db, clock } = deps
  const { timeZone } = await cachedTenantSettings(db)
  let expired = 0
  for (;;) {
    const claimed = await withTransaction(db, async (tx) => {
      const due = await repo.claimDue(tx, clock.now(), batch, (d) => dayIn(d, timeZone))
      await releaseAll(deps, tx, due, 'expire', 'ReservationExpiry')
      return due.length
    })
    expired += claimed
    if (claimed < batch) return expired
  }
}
