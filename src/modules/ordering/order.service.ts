import type { Caller } from '../../kernel/caller.ts'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { CatalogCache } from '../catalog/index.ts'
import { checkOverrideRole } from './order-caller.ts'
import { createOrder } from './order-create.use-case.ts'
import { rate, visibleOrder, type OrderDeps } from './order-placement.ts'
import { previewOf } from './order-preview.ts'
import { validateOrder } from './order-validate.use-case.ts'
import { orderWire, type OrderView } from './order-wire.ts'
import type { OrderInput } from './order.model.ts'

export { OVERRIDE_ROLE } from './order-caller.ts'
export type { OrderView } from './order-wire.ts'

/**
 * Orders: preview (rates, creates nothing), creation (a draft keeping the whole request and discount selection, or
 * validated at once: order-create.use-case.ts) and validation (order-validate.use-case.ts). All three resolve and
 * rate the order with the same functions (order-placement.ts), so a placement bills exactly what its preview showed.
 */
export function createOrderService(deps: { db: Db; clock: Clock; catalogCache?: CatalogCache; outbox: Outbox }) {
  const context: OrderDeps = deps
  return {
    /** Rates the order as placement would and answers the preview; creates nothing. */
    async preview(input: OrderInput, caller: Caller) {
      checkOverrideRole(input, caller)
      return previewOf(await rate(context, context.db, input, caller))
    },

    /** Creates the order, validated at once with `autoValidate` (`createOrder`). */
    create: (sent: OrderInput, autoValidate: boolean, caller: Caller): Promise<OrderView> =>
      createOrder(context, sent, autoValidate, caller),

    /** DRAFT → VALIDATED (`validateOrder`). */
    validate: (code: string, caller: Caller): Promise<OrderView> => validateOrder(context, code, caller),

    async get(code: string, caller: Caller): Promise<OrderView> {
      return orderWire(context.db, await visibleOrder(context.db, code, caller, false))
    },
  }
}

export type OrderService = ReturnType<typeof createOrderService>
