import type { Caller } from '../../kernel/caller.ts'
import { AppError } from '../../kernel/errors.ts'
import type { OrderInput } from './order.model.ts'

/** The role that unit prices given by the order (chargeOverrides) need on top of the order role. */
export const OVERRIDE_ROLE = 'catalog.pricePlans.manage'

/**
 * An order that sets its own unit prices (chargeOverrides) changes what is billed, which is the price plan managers'
 * call: previewing or creating it needs their role too (FORBIDDEN, before anything is read).
 */
export function checkOverrideRole(input: OrderInput, caller: Caller): void {
  const overrides = input.orderOffers.some((o) =>
    (o.orderProducts ?? []).some((p) => (p.chargeOverrides ?? []).length > 0),
  )
  if (overrides && !caller.roles.has(OVERRIDE_ROLE)) {
    throw new AppError('FORBIDDEN', `chargeOverrides need the role ${OVERRIDE_ROLE}`)
  }
}
