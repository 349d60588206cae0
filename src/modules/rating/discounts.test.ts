import { describe, expect, it } from 'vitest'
import { money } from '../../kernel/money.ts'
import { applyDiscounts, cascadeOrder } from './discounts.ts'
import type { DiscountableLine, DiscountInstance, DiscountItem, DiscountLevel, DiscountState } from './rating.model.ts'

const TAX_20 = { id: 1, code: 'TAX_20', percent: money(20) }
const TAX_5_5 = { id: 2, code: 'TAX_05_5', percent: money('5.5') }

function line(key: string, amount: string, product: string | null = 'P1', subscription = 'S1'): DiscountableLine {
  return {
    key,
    amountWithoutTax: money(amount),
    scopes: { ORDER: 'O', OFFER: subscription, PRODUCT: product },
    subscription,
  }
}

function item(code: string, type: 'PERCENTAGE' | 'FIXED', value: string, tax = TAX_20): DiscountItem {
  return { id: 1, code, description: null, type, value: money(value), articleId: 9, articleCode: 'ART_DISCOUNT', tax }
}

function plan(
  code: string,
  level: DiscountLevel,
  items: DiscountItem[],
  options: { sequence?: number; scope?: string; applicationLimit?: number } = {},
): DiscountInstance {
  const scope = options.scope ?? (level === 'ORDER' ? 'O' : level === 'OFFER' ? 'S1' : 'P1')
  return {
    key: `${code}@${scope}`,
    planId: 1,
    planCode: code,
    planDescription: null,
    sequence: options.sequence ?? 0,
    level,
    scope,
    applicationLimit: options.applicationLimit ?? 0,
    items,
  }
}

const SETUP = line('setup', '49.99')
const MONTHLY = line('monthly', '59.99')

/** The discounts as [line, plan, item, amount without tax, tax, amount with tax]. */
function amounts(lines: DiscountableLine[], plans: DiscountInstance[], states = new Map<string, DiscountState>()) {
  return applyDiscounts(lines, plans, states, 2).discounts.map((d) => [
    d.lineKey,
    d.instance.planCode,
    d.item.code,
    d.amountWithoutTax.toString(),
    d.amountTax.toString(),
    d.amountWithTax.toString(),
  ])
}

describe(applyDiscounts.name, () => {
  it.each<[string, DiscountableLine[], DiscountInstance[], string[][]]>([
    [
      'PERCENTAGE applies to every line in scope, rounded per line',
      [SETUP, MONTHLY],
      [plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')])],
      [
        ['setup', 'DP10', 'I10', '-5', '-1', '-6'],
        ['monthly', 'DP10', 'I10', '-6', '-1.2', '-7.2'],
      ],
    ],
    [
      'FIXED applies once per scope instance, one-shot first, never below zero',
      [SETUP, MONTHLY],
      [plan('DP100', 'PRODUCT', [item('F100', 'FIXED', '100')])],
      [
        ['setup', 'DP100', 'F100', '-49.99', '-10', '-59.99'],
        ['monthly', 'DP100', 'F100', '-50.01', '-10', '-60.01'],
      ],
    ],
    [
      'a FIXED smaller than the first line stays on it',
      [SETUP, MONTHLY],
      [plan('DP5', 'PRODUCT', [item('F5', 'FIXED', '5')])],
      [['setup', 'DP5', 'F5', '-5', '-1', '-6']],
    ],
    [
      'cascade by plan sequence: 10 % (sequence 1) before 5 EUR (sequence 2), on the discounted base',
      [SETUP, MONTHLY],
      [
        plan('DP5', 'PRODUCT', [item('F5', 'FIXED', '5')], { sequence: 2 }),
        plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')], { sequence: 1 }),
      ],
      [
        ['setup', 'DP10', 'I10', '-5', '-1', '-6'],
        ['monthly', 'DP10', 'I10', '-6', '-1.2', '-7.2'],
        ['setup', 'DP5', 'F5', '-5', '-1', '-6'],
      ],
    ],
    [
      'same sequence: product level before offer level, so 10 % of 44.99',
      [SETUP, MONTHLY],
      [plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')]), plan('DP5', 'PRODUCT', [item('F5', 'FIXED', '5')])],
      [
        ['setup', 'DP5', 'F5', '-5', '-1', '-6'],
        ['setup', 'DP10', 'I10', '-4.5', '-0.9', '-5.4'],
        ['monthly', 'DP10', 'I10', '-6', '-1.2', '-7.2'],
      ],
    ],
    [
      'same sequence and level: by plan code; items in item order, each on the already-discounted base',
      [MONTHLY],
      [
        plan('DP_B', 'ORDER', [item('B20', 'PERCENTAGE', '20')]),
        plan('DP_A', 'ORDER', [item('A10', 'PERCENTAGE', '10'), item('A1', 'FIXED', '1')]),
      ],
      [
        ['monthly', 'DP_A', 'A10', '-6', '-1.2', '-7.2'],
        ['monthly', 'DP_A', 'A1', '-1', '-0.2', '-1.2'],
        ['monthly', 'DP_B', 'B20', '-10.6', '-2.12', '-12.72'],
      ],
    ],
    [
      'the tax of a discount is the tax of its item article (5.5 %)',
      [SETUP],
      [plan('DP10', 'ORDER', [item('I10', 'PERCENTAGE', '10', TAX_5_5)])],
      [['setup', 'DP10', 'I10', '-5', '-0.28', '-5.28']],
    ],
    [
      'applicationLimit caps the lines a plan discounts per subscription',
      [SETUP, MONTHLY, line('other', '10', 'P9', 'S2')],
      [plan('DP10', 'ORDER', [item('I10', 'PERCENTAGE', '10')], { applicationLimit: 1 })],
      [
        ['setup', 'DP10', 'I10', '-5', '-1', '-6'],
        ['other', 'DP10', 'I10', '-1', '-0.2', '-1.2'],
      ],
    ],
    [
      'scope: a product plan leaves other products and service charges alone; an offer plan its other offers',
      [SETUP, line('support', '9.9', null), line('other', '10', 'P9', 'S2')],
      [
        plan('DP_P', 'PRODUCT', [item('P50', 'PERCENTAGE', '50')]),
        plan('DP_O', 'OFFER', [item('O10', 'PERCENTAGE', '10')], { scope: 'S2' }),
      ],
      [
        ['setup', 'DP_P', 'P50', '-25', '-5', '-30'],
        ['other', 'DP_O', 'O10', '-1', '-0.2', '-1.2'],
      ],
    ],
    [
      'a line at zero is not discounted, and a 100 % discount stops the cascade',
      [line('free', '0'), SETUP],
      [plan('DP_ALL', 'PRODUCT', [item('ALL', 'PERCENTAGE', '100'), item('MORE', 'FIXED', '3')])],
      [['setup', 'DP_ALL', 'ALL', '-49.99', '-10', '-59.99']],
    ],
  ])('%s', (_name, lines, plans, expected) => {
    expect(amounts(lines, plans)).toEqual(expected)
  })

  it('carries FIXED amounts granted and lines counted from one rating to the next', () => {
    const limited = plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')], { applicationLimit: 1 })
    const fixed = plan('DP60', 'PRODUCT', [item('F60', 'FIXED', '60')], { sequence: 1 })
    const first = applyDiscounts([SETUP], [fixed, limited], new Map(), 2)
    expect(first.states.get(limited.key)).toEqual({ applied: { S1: 1 }, fixedUsed: {} })
    expect(first.states.get(fixed.key)).toEqual({ applied: { S1: 1 }, fixedUsed: { F60: '44.99' } })
    expect(first.netAmounts.get('setup')?.toString()).toBe('0')
    // The 10 % plan has discounted its one line of S1; 15.01 of the 60 are left.
    expect(amounts([MONTHLY], [fixed, limited], first.states)).toEqual([
      ['monthly', 'DP60', 'F60', '-15.01', '-3', '-18.01'],
    ])
  })

  it('gives the same lines in one rating as in two (one-shot lines, then recurring ones)', () => {
    const plans = [
      plan('DP5', 'PRODUCT', [item('F5', 'FIXED', '70')], { sequence: 2 }),
      plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')], { sequence: 1, applicationLimit: 2 }),
    ]
    const lines = [SETUP, line('setup2', '3.5'), MONTHLY]
    const once = amounts(lines, plans)
    const first = applyDiscounts(lines.slice(0, 2), plans, new Map(), 2)
    const split = [...amounts(lines.slice(0, 2), plans), ...amounts(lines.slice(2), plans, first.states)]
    expect(split.sort()).toEqual([...once].sort())
  })

  it('orders instances by sequence, level, then code', () => {
    const sorted = [
      plan('C', 'ORDER', []),
      plan('B', 'PRODUCT', [], { sequence: 1 }),
      plan('A', 'OFFER', []),
      plan('D', 'PRODUCT', []),
    ].sort(cascadeOrder)
    expect(sorted.map((p) => p.planCode)).toEqual(['D', 'A', 'C', 'B'])
  })
})
