import { stateMachine } from '../../kernel/state-machine.ts'

export type OrderStatus = 'DRAFT' | 'VALIDATED'
export type OrderTrigger = 'validate'

/**
 * An order's states: a DRAFT is validated once (placement: its subscriptions ACTIVE, its one-shot charges billed);
 * VALIDATED is final. Read by `validate` before it places (INVALID_STATE, "Order X is VALIDATED, not DRAFT") and by
 * the statement that marks the order validated.
 */
export const orderMachine = stateMachine<OrderStatus, OrderTrigger>({
  kind: 'Order',
  table: {
    DRAFT: { validate: 'VALIDATED' },
    VALIDATED: {},
  },
  describe: (state, _trigger, _allowed, subject) => `${subject} is ${state}, not DRAFT`,
})

export type SubscriptionStatus = 'CREATED' | 'ACTIVE' | 'SUSPENDED' | 'TERMINATED'
export type SubscriptionTrigger = 'activate'

/**
 * The moves of a subscription that ordering makes: a CREATED subscription is activated when its order is placed.
 * (SUSPENDED and TERMINATED are set through the subscription resource, not by a trigger of this module.)
 */
export const subscriptionMachine = stateMachine<SubscriptionStatus, SubscriptionTrigger>({
  kind: 'Subscription',
  table: {
    CREATED: { activate: 'ACTIVE' },
    ACTIVE: {},
    SUSPENDED: {},
    TERMINATED: {},
  },
})
