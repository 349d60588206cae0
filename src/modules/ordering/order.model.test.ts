import { describe, expect, it } from 'vitest'
import { attributeValue, attributeValueProblem, previewChargeType } from './order.model.ts'

const attribute = (attributeType: string, allowedValues: string[] = []) => ({
  code: 'A',
  attributeType,
  allowedValues,
  disabled: false,
})

describe(attributeValueProblem.name, () => {
  it.each<[string, string[], string, string | undefined]>([
    ['LIST_TEXT', ['GOLD', 'SILVER'], 'GOLD', undefined],
    ['LIST_TEXT', ['GOLD', 'SILVER'], 'gold', 'expected one of GOLD, SILVER'],
    ['LIST_TEXT', [], 'anything', undefined],
    ['LIST_MULTIPLE_TEXT', ['A', 'B', 'C'], 'A;C', undefined],
    ['LIST_MULTIPLE_TEXT', ['A', 'B'], 'A;Z', 'expected values among A, B separated by ;'],
    ['LIST_NUMERIC', ['10', '20'], '20', undefined],
    // Matched as text, like MATRIX rows: 20.0 would be accepted and then find no price.
    ['LIST_NUMERIC', ['10', '20'], '20.0', 'expected one of 10, 20'],
    ['LIST_NUMERIC', ['10', '20'], '15', 'expected one of 10, 20'],
    ['NUMERIC', [], '-12.5', undefined],
    ['NUMERIC', [], '12,5', 'expected a number'],
    ['INTEGER', [], '12', undefined],
    ['INTEGER', [], '12.5', 'expected an integer'],
    ['BOOLEAN', [], 'true', undefined],
    ['BOOLEAN', [], 'yes', 'expected true or false'],
    ['DATE', [], '2026-03-01', undefined],
    ['DATE', [], '01/03/2026', 'expected a date (yyyy-MM-dd)'],
    ['TEXT', [], 'free text', undefined],
  ])('%s %j with %s → %s', (type, allowed, value, expected) => {
    expect(attributeValueProblem(attribute(type, allowed), value)).toBe(expected)
  })
})

describe(attributeValue.name, () => {
  it('reads the one typed value as text', () => {
    expect(attributeValue({ attributeCode: 'A', stringValue: 'GOLD' })).toBe('GOLD')
    expect(attributeValue({ attributeCode: 'A', doubleValue: 12.5 })).toBe('12.5')
    expect(attributeValue({ attributeCode: 'A', booleanValue: false })).toBe('false')
    expect(attributeValue({ attributeCode: 'A', dateValue: '2026-03-01' })).toBe('2026-03-01')
    expect(attributeValue({ attributeCode: 'A' })).toBeNull()
  })
})

describe(previewChargeType.name, () => {
  it('names one-shot charges by their one-shot type', () => {
    expect(previewChargeType({ type: 'ONESHOT', oneShotType: 'SUBSCRIPTION' })).toBe('ONE_SHOT_SUBSCRIPTION')
    expect(previewChargeType({ type: 'ONESHOT', oneShotType: 'TERMINATION' })).toBe('ONE_SHOT_TERMINATION')
    expect(previewChargeType({ type: 'RECURRING', oneShotType: null })).toBe('RECURRING')
    expect(previewChargeType({ type: 'USAGE', oneShotType: null })).toBe('USAGE')
  })
})
