import { sql } from 'drizzle-orm'
import { rows, type Db } from '../../kernel/db/database.ts'

/** The statuses of a plan an order may apply now (a DRAFT plan is not active yet, an EXPIRED one used up). */
export const USABLE_PLAN_STATUSES: readonly string[] = ['ACTIVE', 'IN_USE']

/** What counting an order's plan uses found: whether the uses were counted, each plan's status under the lock. */
export interface PlanUses {
  readonly counted: boolean
  readonly statuses: ReadonlyMap<number, string>
}

/**
 * Counts one use of each plan by an order, in one statement. The plans are locked first, in id order (two orders
 * sharing plans lock them in the same order, so they queue instead of deadlocking), `for no key update`: the order's
 * own rows referencing the plans hold key-share locks on them, which a plain `for update` would wait for (a deadlock
 * between two orders). Then, only when every plan's status under the lock is one of `usable`, each gets its use: the
 * first use moves an ACTIVE plan to IN_USE, and a plan with an `initialQuantity` becomes EXPIRED when its uses reach
 * it. Otherwise nothing is counted and the statuses tell the caller why.
 */
export async function countDiscountPlanUses(
  tx: Db,
  ids: readonly number[],
  usable: readonly string[],
  actor: string,
): Promise<PlanUses> {
  const distinct = [...new Set(ids)]
  if (distinct.length === 0) return { counted: true, statuses: new Map() }
  const found = await rows<{ id: number; status: string; counted: number }>(
    tx,
    sql`with locked as (
        select id, status from discount_plan where id = any(${`{${distinct.join(',')}}`}::bigint[])
        order by id for no key update),
      allowed as (select bool_and(status = any(${`{${usable.join(',')}}`}::text[])) as ok from locked),
      counted as (
        update discount_plan p set
          used_quantity = p.used_quantity + 1,
          status = case when p.initial_quantity > 0 and p.used_quantity + 1 >= p.initial_quantity
            then 'EXPIRED' else 'IN_USE' end,
          status_date = case when p.status = 'IN_USE' and not (p.initial_quantity > 0
            and p.used_quantity + 1 >= p.initial_quantity) then p.status_date else now() end,
          updated = now(), updater = ${actor}
        from allowed where allowed.ok and p.id in (select id from locked)
        returning p.id)
      select l.id::int as id, l.status, (select count(*) from counted)::int as counted from locked l`,
  )
  // Counted only when every plan was found, locked and usable: a plan missing here is not counted silently.
  return {
    counted: found.length === distinct.length && found[0]?.counted === distinct.length,
    statuses: new Map(found.map((p) => [p.id, p.status])),
  }
}
