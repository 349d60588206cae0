import type { Caller } from '../../kernel/caller.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import { heldPath, lockedPath, releaseAll, type ReservationDeps, type ReservationType } from './reservation.paths.ts'
import { releasePlan } from './reservation.plan.ts'

/**
 * Cancels an OPEN reservation: its counter units and held amount are given back, once (`releasePlan`). Without
 * discount plan states held, in one statement; otherwise under the locks, which give the plan states back too.
 */
export async function cancel(
  deps: ReservationDeps,
  id: number,
  caller: Caller,
  type: ReservationType = 'USAGE',
): Promise<string> {
  const settings = await cachedTenantSettings(deps.db)
  const done = await heldPath(deps, id, caller, settings.timeZone, type, 'cancel', async (r) => ({
    ...releasePlan(r, 'cancel'),
    status: 'CANCELLED' as const,
  }))
  if (done !== undefined) return done
  return lockedPath(deps, id, caller, settings.timeZone, type, 'cancel', async (tx, r) => {
    await releaseAll(deps, tx, [r], 'cancel', caller.username)
    return releasePlan(r, 'cancel').message
  })
}
