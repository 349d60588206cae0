import { asc, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import { discountPlans } from '../../kernel/db/schema/index.ts'

export interface PlanUsage {
  id: number
  code: string
  status: string
  initialQuantity: number
  usedQuantity: number
}

/**
 * Locks discount plans for an order's validation, in id order (two orders sharing plans lock them in the same order,
 * so they queue instead of deadlocking). `no key update`: the order's own rows referencing the plans hold key-share
 * locks on them, which a plain `for update` would wait for (a deadlock between two orders). The caller re-checks
 * the statuses it read before the lock.
 */
export async function lockDiscountPlans(tx: Db, ids: readonly number[]): Promise<Map<number, PlanUsage>> {
  if (ids.length === 0) return new Map()
  const found = await tx
    .select({
      id: discountPlans.id,
      code: discountPlans.code,
      status: discountPlans.status,
      initialQuantity: discountPlans.initialQuantity,
      usedQuantity: discountPlans.usedQuantity,
    })
    .from(discountPlans)
    .where(inArray(discountPlans.id, [...new Set(ids)]))
    .orderBy(asc(discountPlans.id))
    .for('no key update')
  return new Map(found.map((p) => [p.id, p]))
}

/**
 * Counts one use of each plan by an order (call under `lockDiscountPlans`): the first use moves an ACTIVE plan to
 * IN_USE, and a plan with an `initialQuantity` becomes EXPIRED when its uses reach it.
 */
export async function recordDiscountPlanUses(tx: Db, ids: readonly number[], actor: string): Promise<void> {
  if (ids.length === 0) return
  await tx
    .update(discountPlans)
    .set({
      usedQuantity: sql`${discountPlans.usedQuantity} + 1`,
      status: sql`case when ${discountPlans.initialQuantity} > 0 and ${discountPlans.usedQuantity} + 1 >= ${discountPlans.initialQuantity}
        then 'EXPIRED' else 'IN_USE' end`,
      statusDate: sql`case when ${discountPlans.status} = 'IN_USE' and not (${discountPlans.initialQuantity} > 0
        and ${discountPlans.usedQuantity} + 1 >= ${discountPlans.initialQuantity}) then ${discountPlans.statusDate} else now() end`,
      updated: sql`now()`,
      updater: actor,
    })
    .where(inArray(discountPlans.id, [...new Set(ids)]))
}
