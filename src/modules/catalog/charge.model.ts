import type { ErrorDetail } from '../../kernel/errors.ts'

export const CHARGE_TYPES = ['RECURRING', 'USAGE', 'ONESHOT'] as const
export const ONE_SHOT_TYPES = ['SUBSCRIPTION', 'TERMINATION', 'OTHER'] as const

/** The type-dependent fields of a charge, as sent or as merged with the stored record on update. */
export interface ChargeShape {
  type: string
  oneShotType?: string | null
  billingCalendar?: string | null
  inputUnitOfMeasure?: string | null
  ratingUnitOfMeasure?: string | null
  filterParam1?: string | null
  counterTemplate?: string | null
  subscriptionProrata?: boolean | null
}

const present = (value: unknown) => value !== undefined && value !== null && value !== ''

/**
 * Which fields each charge type takes: RECURRING needs a billing calendar (and alone may be prorated), ONESHOT alone
 * has a one-shot type, USAGE alone has units of measure and a filter parameter.
 */
export function chargeRules(charge: ChargeShape): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  const only = (field: keyof ChargeShape, type: string, what: string) => {
    if (charge.type !== type && present(charge[field]) && charge[field] !== false) {
      problems.push({ field, message: `only ${type} charges take ${what}` })
    }
  }
  if (charge.type === 'RECURRING' && !present(charge.billingCalendar)) {
    problems.push({ field: 'billingCalendar', message: 'the calendar is required for a RECURRING charge' })
  }
  only('billingCalendar', 'RECURRING', 'a billing calendar')
  only('subscriptionProrata', 'RECURRING', 'subscriptionProrata')
  only('oneShotType', 'ONESHOT', 'a oneShotType')
  only('inputUnitOfMeasure', 'USAGE', 'an input unit of measure')
  only('ratingUnitOfMeasure', 'USAGE', 'a rating unit of measure')
  only('filterParam1', 'USAGE', 'filterParam1')
  only('counterTemplate', 'USAGE', 'a counter template')
  return problems
}
