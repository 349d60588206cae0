import type { Caller } from '../../kernel/caller.ts'
import { orderMachine } from './order.machine.ts'
import type { OrderStatus } from './order.machine.ts'
import type { OrderInput } from './order.model.ts'
import { countPlanUses, orderValidated, place, placing, rate, visibleOrder, type OrderDeps } from './order-placement.ts'
import { orderWire, type OrderView } from './order-wire.ts'

/**
 * DRAFT → VALIDATED (`orderMachine`): re-checks and rates the stored request with its whole discount selection,
 * then places it (bills), under the order's lock.
 */
export async function validateOrder(deps: OrderDeps, code: string, caller: Caller): Promise<OrderView> {
  return placing(deps, async (tx) => {
    const order = await visibleOrder(tx, code, caller, true)
    orderMachine.next(order.status as OrderStatus, 'validate', `Order ${code}`)
    const rating = await rate(deps, tx, order.request as unknown as OrderInput, caller)
    const view = await orderWire(tx, await place(tx, order, rating, caller))
    await countPlanUses(tx, rating, caller)
    await orderValidated(deps, tx, order.id, view, rating.order.seller.id)
    return view
  })
}
