import { describe, expect, it } from 'vitest'
import { chargeRules, type ChargeShape } from './charge.model.ts'

describe(chargeRules.name, () => {
  it.each([
    [{ type: 'RECURRING', billingCalendar: 'MONTHLY', subscriptionProrata: true }],
    [{ type: 'USAGE', inputUnitOfMeasure: 'MB', ratingUnitOfMeasure: 'GB', filterParam1: 'DATA' }],
    [{ type: 'ONESHOT', oneShotType: 'TERMINATION' }],
    [{ type: 'ONESHOT', subscriptionProrata: false, billingCalendar: null }],
  ] as ChargeShape[][])('accepts %j', (charge) => {
    expect(chargeRules(charge)).toEqual([])
  })

  it.each([
    [{ type: 'RECURRING' }, 'billingCalendar: the calendar is required for a RECURRING charge'],
    [{ type: 'RECURRING', billingCalendar: '' }, 'billingCalendar: the calendar is required for a RECURRING charge'],
    [{ type: 'USAGE', billingCalendar: 'MONTHLY' }, 'billingCalendar: only RECURRING charges take a billing calendar'],
    [
      { type: 'ONESHOT', subscriptionProrata: true },
      'subscriptionProrata: only RECURRING charges take subscriptionProrata',
    ],
    [{ type: 'USAGE', oneShotType: 'OTHER' }, 'oneShotType: only ONESHOT charges take a oneShotType'],
    [{ type: 'ONESHOT', filterParam1: 'X' }, 'filterParam1: only USAGE charges take filterParam1'],
    [
      { type: 'RECURRING', billingCalendar: 'M', inputUnitOfMeasure: 'MB' },
      'inputUnitOfMeasure: only USAGE charges take an input unit of measure',
    ],
  ] as [ChargeShape, string][])('refuses %j', (charge, problem) => {
    expect(chargeRules(charge).map((p) => `${p.field}: ${p.message}`)).toContain(problem)
  })
})
