import { describe, expect, it } from 'vitest'
import { money } from '../../kernel/money.ts'
import { applyDiscounts, cascadeOrder, discountStateTaken, giveBackDiscountState } from './discounts.ts'
import type { DiscountableLine, DiscountInstance, DiscountItem, DiscountLevel, DiscountState } from './rating.model.ts'

const TAX_20 = { id: 1, code: 'TAX_20', percent: money(20) }
const TAX_5_5 = { id: 2, code: 'TAX_05_5', percent: money('5.5') }
const TAX_0 = { id: 3, code: 'TAX_00', percent: money(0) }
const NET = { minorUnits: 2, pricesIncludeTax: false }
const GROSS = { minorUnits: 2, pricesIncludeTax: true }

function line(key: string, amount: string, product: string | null = 'P1', subscription = 'S1'): DiscountableLine {
  return {
    key,
    amount: money(amount),
    scopes: { ORDER: 'O', OFFER: subscription, PRODUCT: product },
    subscription,
  }
}

function item(code: string, type: 'PERCENTAGE' | 'FIXED', value: string, tax = TAX_20): DiscountItem {
  return { id: 1, code, description: null, type, value: money(value), articleId: 9, articleCode: 'ART_DISCOUNT', tax }
}

/** Plan ids by code: instances of one plan at several levels share it. */
const planIds = new Map<string, number>()

function plan(
  code: string,
  level: DiscountLevel,
  items: DiscountItem[],
  options: { sequence?: number; scope?: string; applicationLimit?: number } = {},
): DiscountInstance {
  const scope = options.scope ?? (level === 'ORDER' ? 'O' : level === 'OFFER' ? 'S1' : 'P1')
  if (!planIds.has(code)) planIds.set(code, planIds.size + 1)
  return {
    key: `${code}@${level}:${scope}`,
    planId: planIds.get(code)!,
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
function amounts(
  lines: DiscountableLine[],
  plans: DiscountInstance[],
  states = new Map<string, DiscountState>(),
  rules = NET,
) {
  return applyDiscounts(lines, plans, states, rules).discounts.map((d) => [
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
    const first = applyDiscounts([SETUP], [fixed, limited], new Map(), NET)
    expect(first.states.get(limited.key)).toEqual({ applied: { S1: 1 }, fixedUsed: {} })
    expect(first.states.get(fixed.key)).toEqual({ applied: { S1: 1 }, fixedUsed: { F60: '44.99' } })
    expect(first.netAmounts.get('setup')?.toString()).toBe('0')
    // The 10 % plan has discounted its one line of S1; 15.01 of the 60 are left.
    expect(amounts([MONTHLY], [fixed, limited], first.states)).toEqual([
      ['monthly', 'DP60', 'F60', '-15.01', '-3', '-18.01'],
    ])
  })

  it('gives back what a held rating took, so the next rating discounts as if it had not run', () => {
    const limited = plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')], { applicationLimit: 1 })
    const fixed = plan('DP60', 'PRODUCT', [item('F60', 'FIXED', '60')], { sequence: 1 })
    const first = applyDiscounts([SETUP], [fixed, limited], new Map(), NET)
    const held = applyDiscounts([MONTHLY], [fixed, limited], first.states, NET)
    const taken = new Map(
      [fixed.key, limited.key].map((key) => [key, discountStateTaken(first.states.get(key)!, held.states.get(key)!)]),
    )
    expect(taken.get(fixed.key)).toEqual({ applied: { S1: 1 }, fixedUsed: { F60: '15.01' } })
    expect(taken.get(limited.key)).toEqual({ applied: {}, fixedUsed: {} })
    const given = new Map(
      [fixed.key, limited.key].map((key) => [key, giveBackDiscountState(held.states.get(key)!, taken.get(key)!)]),
    )
    expect(given).toEqual(first.states)
    expect(amounts([MONTHLY], [fixed, limited], given)).toEqual(amounts([MONTHLY], [fixed, limited], first.states))
    // Never below nothing, and an entry brought to nothing is dropped.
    expect(
      giveBackDiscountState(
        { applied: { S1: 1 }, fixedUsed: { F: '2' } },
        { applied: { S1: 3 }, fixedUsed: { F: '5' } },
      ),
    ).toEqual({
      applied: {},
      fixedUsed: {},
    })
  })

  it('gives the same lines in one rating as in two (one-shot lines, then recurring ones)', () => {
    const plans = [
      plan('DP5', 'PRODUCT', [item('F5', 'FIXED', '70')], { sequence: 2 }),
      plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')], { sequence: 1, applicationLimit: 2 }),
    ]
    const lines = [SETUP, line('setup2', '3.5'), MONTHLY]
    const once = amounts(lines, plans)
    const first = applyDiscounts(lines.slice(0, 2), plans, new Map(), NET)
    const split = [...amounts(lines.slice(0, 2), plans), ...amounts(lines.slice(2), plans, first.states)]
    expect(split.sort()).toEqual([...once].sort())
  })

  it.each<[string, DiscountableLine[], DiscountInstance[], string[][]]>([
    [
      'a plan at product and offer level discounts one line of the subscription, at the first level in cascade',
      [line('a', '10', 'P1'), line('b', '20', 'P2')],
      [
        plan('DP50', 'OFFER', [item('I50', 'PERCENTAGE', '50')], { applicationLimit: 1 }),
        plan('DP50', 'PRODUCT', [item('I50', 'PERCENTAGE', '50')], { scope: 'P2', applicationLimit: 1 }),
      ],
      [['b', 'DP50', 'I50', '-10', '-2', '-12']],
    ],
    [
      'a plan at order and offer level with a limit of 2: two lines, not two per level',
      [line('a', '10'), line('b', '20'), line('c', '30')],
      [
        plan('DP10', 'ORDER', [item('I10', 'PERCENTAGE', '10')], { applicationLimit: 2 }),
        plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')], { applicationLimit: 2 }),
      ],
      [
        ['a', 'DP10', 'I10', '-1', '-0.2', '-1.2'],
        ['b', 'DP10', 'I10', '-2', '-0.4', '-2.4'],
      ],
    ],
    [
      'another plan with the same limit counts apart',
      [line('a', '10'), line('b', '20')],
      [
        plan('DP_X', 'OFFER', [item('X10', 'PERCENTAGE', '10')], { applicationLimit: 1 }),
        plan('DP_Y', 'ORDER', [item('Y10', 'PERCENTAGE', '10')], { applicationLimit: 1 }),
      ],
      [
        ['a', 'DP_X', 'X10', '-1', '-0.2', '-1.2'],
        ['a', 'DP_Y', 'Y10', '-0.9', '-0.18', '-1.08'],
      ],
    ],
  ])('applicationLimit per plan and subscription: %s', (_name, lines, plans, expected) => {
    expect(amounts(lines, plans)).toEqual(expected)
  })

  it('counts the lines of all the levels of a plan from one rating to the next', () => {
    const product = plan('DP50', 'PRODUCT', [item('I50', 'PERCENTAGE', '50')], { scope: 'P2', applicationLimit: 2 })
    const offer = plan('DP50', 'OFFER', [item('I50', 'PERCENTAGE', '50')], { applicationLimit: 2 })
    const first = applyDiscounts([line('b', '20', 'P2')], [product, offer], new Map(), NET)
    // Both levels discounted line b (product first in cascade): two discounted lines counted for DP50 in S1.
    expect(first.discounts.map((d) => d.amountWithoutTax.toString())).toEqual(['-10', '-5'])
    expect(first.states.get(product.key)).toEqual({ applied: { S1: 1 }, fixedUsed: {} })
    expect(first.states.get(offer.key)).toEqual({ applied: { S1: 1 }, fixedUsed: {} })
    // The limit of 2 is reached: the next rating discounts nothing more.
    expect(amounts([line('c', '30', 'P1')], [product, offer], first.states)).toEqual([])
  })

  it.each<[string, DiscountableLine[], DiscountInstance[], string[][]]>([
    // Lines are amounts with tax; each discount is an amount with tax whose tax is round(d × p / (100 + p)).
    [
      '10 % of 120.00 with tax: 12.00, of which 2.00 tax',
      [line('l', '120')],
      [plan('DP10', 'ORDER', [item('I10', 'PERCENTAGE', '10')])],
      [['l', 'DP10', 'I10', '-10', '-2', '-12']],
    ],
    [
      'FIXED 5 with tax: 5/6 = 0.833… tax',
      [line('l', '59.99')],
      [plan('DP5', 'ORDER', [item('F5', 'FIXED', '5')])],
      [['l', 'DP5', 'F5', '-4.17', '-0.83', '-5']],
    ],
    [
      'FIXED 100 with tax across two lines, never below zero',
      [SETUP, MONTHLY],
      [plan('DP100', 'PRODUCT', [item('F100', 'FIXED', '100')])],
      [
        ['setup', 'DP100', 'F100', '-41.66', '-8.33', '-49.99'],
        ['monthly', 'DP100', 'F100', '-41.67', '-8.34', '-50.01'],
      ],
    ],
    [
      'the cascade on amounts with tax: 10 % (sequence 1), then 5 fixed on 44.99',
      [SETUP, MONTHLY],
      [
        plan('DP5', 'PRODUCT', [item('F5', 'FIXED', '5')], { sequence: 2 }),
        plan('DP10', 'OFFER', [item('I10', 'PERCENTAGE', '10')], { sequence: 1 }),
      ],
      [
        ['setup', 'DP10', 'I10', '-4.17', '-0.83', '-5'],
        ['monthly', 'DP10', 'I10', '-5', '-1', '-6'],
        ['setup', 'DP5', 'F5', '-4.17', '-0.83', '-5'],
      ],
    ],
    [
      'a discount at the article’s 5.5 %: 5.00 with tax, 0.26 tax',
      [SETUP],
      [plan('DP10', 'ORDER', [item('I10', 'PERCENTAGE', '10', TAX_5_5)])],
      [['setup', 'DP10', 'I10', '-4.74', '-0.26', '-5']],
    ],
    [
      'a discount at 0 %',
      [SETUP],
      [plan('DP10', 'ORDER', [item('I10', 'PERCENTAGE', '10', TAX_0)])],
      [['setup', 'DP10', 'I10', '-5', '0', '-5']],
    ],
    [
      'half a cent of tax rounds up: 10 % of 99.99 = 10.00, tax 1.666… → 1.67',
      [line('l', '99.99')],
      [plan('DP10', 'ORDER', [item('I10', 'PERCENTAGE', '10')])],
      [['l', 'DP10', 'I10', '-8.33', '-1.67', '-10']],
    ],
  ])('with prices including tax: %s', (_name, lines, plans, expected) => {
    expect(amounts(lines, plans, new Map(), GROSS)).toEqual(expected)
  })

  it('explains a discount of an amount with tax', () => {
    const applied = applyDiscounts(
      [line('l', '120')],
      [plan('DP10', 'ORDER', [item('I10', 'PERCENTAGE', '10')])],
      new Map(),
      GROSS,
    )
    expect(applied.discounts[0]?.explanation).toBe(
      'discount plan DP10 (ORDER) item I10: 10 % of 120.00 with tax = -12.00 with tax; tax TAX_20 20 % included = -2.00; without tax -10.00',
    )
    expect(applied.netAmounts.get('l')?.toString()).toBe('108')
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
