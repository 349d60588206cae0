/** What another module's statement reads of a discount plan or item it names: its code. */
import { sql, type SQL } from 'drizzle-orm'

/** The code of the discount plan item `discountPlanItemId`, as a scalar subquery. */
export function discountPlanItemCodeOf(discountPlanItemId: SQL): SQL {
  return sql`(select code from discount_plan_item where id = ${discountPlanItemId})`
}

/** The code of the discount plan `discountPlanId` (an SQL expression over the statement's row), as a subquery. */
export function discountPlanCodeOf(discountPlanId: SQL): SQL<string> {
  return sql<string>`(select code from discount_plan where discount_plan.id = ${discountPlanId})`
}
