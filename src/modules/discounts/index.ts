import type { FastifyInstance } from 'fastify'
import { defaultPageLimit } from '../../kernel/http/pagination.ts'
import type { Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import type { Resource } from '../../kernel/resources/resource.model.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { createResourceService } from '../../kernel/resources/resource.service.ts'
import { registerDiscountPlanRoutes } from './discount-plan.routes.ts'
import { createDiscountPlanService } from './discount-plan.service.ts'

export type { DiscountPlanService } from './discount-plan.service.ts'
export { countDiscountPlanUses, USABLE_PLAN_STATUSES, type PlanUses } from './discount-plan-usage.ts'
export { discountPlansOf, type DiscountItemRow, type DiscountPlanRow } from './discount-plan-lookup.repository.ts'
export { discountPlanCodeOf, discountPlanItemCodeOf } from './discount-codes.repository.ts'

/** Discount plans and their items. */
export function createDiscountsModule(deps: { db: Db; actorOf: ActorOf }) {
  const def = registry.get('DiscountPlan')
  const resource: Resource = {
    entity: 'DiscountPlan',
    path: 'discountPlans',
    roleResource: 'catalog.discounts',
    label: 'discount plan',
    fieldSchemas: {
      initialQuantity: { minimum: 0 },
      applicationLimit: { minimum: 0 },
      sequence: { minimum: 0 },
    },
    def,
    writableFields: [...def.fields.values()].filter((f) => !f.readOnly),
  }
  const defaultLimit = () => defaultPageLimit(deps.db)
  const service = createDiscountPlanService({
    db: deps.db,
    records: createResourceService({ resource, db: deps.db, defaultLimit }),
  })
  return {
    service,
    routes: (app: FastifyInstance) => registerDiscountPlanRoutes(app, service, resource, deps.actorOf),
  }
}
