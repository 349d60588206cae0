import { describe, expect, it } from 'vitest'
import { money } from '../../kernel/money.ts'
import { availableQuantity, splitConsumption, takeFreeUnits } from './reservation.model.ts'
import { parseUsageLine } from './usage-line.model.ts'

const d = (v: string) => money(v)

describe('takeFreeUnits', () => {
  it('takes free units first, up to what each period has left', () => {
    const take = takeFreeUnits(
      [
        { periodId: 7, value: d('3') },
        { periodId: 9, value: d('0') },
      ],
      d('5.5'),
    )
    expect(take.taken).toEqual({ '7': '3' })
    expect(take.free.toFixed()).toBe('3')
    expect(take.paid.toFixed()).toBe('2.5')
  })
  it('takes only what is asked when the counter covers it', () => {
    const take = takeFreeUnits([{ periodId: 1, value: d('10') }], d('4'))
    expect([take.taken, take.free.toFixed(), take.paid.toFixed()]).toEqual([{ '1': '4' }, '4', '0'])
  })
})

describe('splitConsumption', () => {
  const reservation = { freeQuantity: d('3'), counterPeriodValues: { '7': '3' } }
  it.each([
    ['2', '2', '0', { '7': '1' }],
    ['3', '3', '0', {}],
    ['5', '3', '2', {}],
    ['0', '0', '0', { '7': '3' }],
  ])('consumed %s: free %s, paid %s, returned %j', (consumed, free, paid, returned) => {
    const split = splitConsumption(reservation, d(consumed))
    expect(split.freeConsumed.toFixed()).toBe(free)
    expect(split.paidConsumed.toFixed()).toBe(paid)
    expect(Object.fromEntries(Object.entries(split.returned).map(([k, v]) => [k, v.toFixed()]))).toEqual(returned)
  })
})

describe('availableQuantity', () => {
  it('adds free units left and whole paid units the balance covers', () => {
    expect(availableQuantity(d('2'), d('10'), d('1.2')).toFixed()).toBe('10')
    expect(availableQuantity(d('0'), d('0'), d('1.2')).toFixed()).toBe('0')
    expect(availableQuantity(d('4'), d('10'), d('0')).toFixed()).toBe('4')
  })
})

describe('parseUsageLine', () => {
  it('reads the five fields, the date-time in the tenant zone', () => {
    const line = parseUsageLine('2026-03-10T10:00:00;SUB_1;2.5;DATA;x', 'Europe/Paris')
    expect(line.usageDate.toISOString()).toBe('2026-03-10T09:00:00.000Z')
    expect([line.usageDay, line.subscriptionCode, line.quantity.toFixed(), line.param1, line.param2]).toEqual([
      '2026-03-10',
      'SUB_1',
      '2.5',
      'DATA',
      'x',
    ])
    expect(parseUsageLine('2026-03-10T10:00;SUB_1;1;;', 'UTC').usageDate.toISOString()).toBe('2026-03-10T10:00:00.000Z')
  })
  it.each([
    ['2026-03-10T10:00:00;SUB_1;1;DATA', 'line'],
    ['2026-03-10T10:00:00;SUB_1;1;DATA;x;y', 'line'],
    ['2026-02-30T10:00:00;SUB_1;1;DATA;x', 'date'],
    ['0000-01-01T10:00:00;SUB_1;1;DATA;x', 'date'],
    ['10/03/2026;SUB_1;1;DATA;x', 'date'],
    ['2026-03-10T25:00:00;SUB_1;1;DATA;x', 'date'],
    ['2026-03-10T10:00:00;;1;DATA;x', 'subscription'],
    ['2026-03-10T10:00:00;SUB_1;0;DATA;x', 'quantity'],
    ['2026-03-10T10:00:00;SUB_1;-1;DATA;x', 'quantity'],
    ['2026-03-10T10:00:00;SUB_1;1e3;DATA;x', 'quantity'],
  ])('refuses %s naming %s', (text, field) => {
    expect(() => parseUsageLine(text, 'UTC')).toThrow(
      expect.objectContaining({ code: 'INVALID_USAGE_RECORD', details: [expect.objectContaining({ field })] }),
    )
  })
})
