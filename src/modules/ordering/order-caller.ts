import { AppError } from '../../kernel/errors.ts'
import type { OrderInput } from './order.model.ts'

/** Who places or reads an order: recorded as creator; a seller-restricted caller sees only its sellers' orders. */
export interface Caller {
  readonly username: string
  readonly sellerCodes: readonly string[] | null
  /**
   * The roles of a caller coming through the order routes, for the rules asking more than the route's role
   * (`checkOverrideRole`). Absent when another module's service places the order under its own authorization (offer
   * reservations, the demo data), whose orders carry no overrides.
   */
  readonly roles?: ReadonlySet<string>
}

/** The role that unit prices given by the order (chargeOverrides) need on top of the order role. */
export const OVERRIDE_ROLE = 'catalog.pricePlans.manage'

/**
 * An order that sets its own unit prices (chargeOverrides) changes what is billed, which is the price plan managers'
 * call: previewing or creating it needs their role too (FORBIDDEN, before anything is read).
 */
export function checkOverrideRole(input: OrderInput, caller: Caller): void {
  if (!caller.roles) return
  const overrides = input.orderOffers.some((o) =>
    (o.orderProducts ?? []).some((p) => (p.chargeOverrides ?? []).length > 0),
  )
  if (overrides && !caller.roles.has(OVERRIDE_ROLE)) {
    throw new AppError('FORBIDDEN', `chargeOverrides need the role ${OVERRIDE_ROLE}`)
  }
}
