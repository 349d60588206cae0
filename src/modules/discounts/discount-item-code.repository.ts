/** What another module's statement reads of a discount plan item it names: its code. */
import { sql, type SQL } from 'drizzle-orm'

/** The code of the discount plan item `discountPlanItemId`, as a scalar subquery. */
export function discountPlanItemCodeOf(discountPlanItemId: SQL): SQL {
  return sql`(select code from discount_plan_item where id = ${discountPlanItemId})`
}
