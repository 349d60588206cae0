import { describe, expect, it } from 'vitest'
import { formatNumber, patternProblem, periodKey } from './sequence.model.ts'

describe(formatNumber.name, () => {
  it('writes the default pattern with the invoice year and a six-digit number', () => {
    expect(formatNumber('INV-{yyyy}-{seq:6}', '2026-12-01', 42)).toBe('INV-2026-000042')
  })

  it('writes {yy} and {mm}, and never cuts a number longer than its width', () => {
    expect(formatNumber('F{yy}{mm}/{seq:3}', '2027-03-31', 1234)).toBe('F2703/1234')
  })
})

describe(patternProblem.name, () => {
  it.each([
    ['INV-{yyyy}-{seq:6}', 'NEVER'],
    ['{seq:1}', 'NEVER'],
    ['CN/{yy}/{seq:8}', 'YEAR'],
    ['{yyyy}{mm}-{seq:4}', 'MONTH'],
  ] as const)('accepts %s reset %s', (pattern, reset) => {
    expect(patternProblem(pattern, reset)).toBeUndefined()
  })

  it.each([
    ['INV-{yyyy}', 'NEVER', 'must hold exactly one {seq:N}'],
    ['{seq:3}-{seq:3}', 'NEVER', 'must hold exactly one {seq:N}'],
    ['{seq:0}', 'NEVER', '{seq:N} takes N from 1 to 20'],
    ['{seq:21}', 'NEVER', '{seq:N} takes N from 1 to 20'],
    ['INV-{dd}-{seq:6}', 'NEVER', 'tokens are {yyyy}, {yy}, {mm} and {seq:N}; no other braces'],
    ['INV {seq:6}', 'NEVER', 'characters outside tokens must be printable ASCII without spaces'],
    ['INV-{seq:6}', 'YEAR', 'a sequence reset each year must hold {yyyy} or {yy}'],
    ['INV-{yyyy}-{seq:6}', 'MONTH', 'a sequence reset each month must hold {mm} and {yyyy} or {yy}'],
    ['', 'NEVER', 'must have 1 to 100 characters'],
  ] as const)('refuses %j reset %s', (pattern, reset, problem) => {
    expect(patternProblem(pattern, reset)).toBe(problem)
  })
})

describe(periodKey.name, () => {
  it('counts one period for NEVER, one per year or per month of the invoice date otherwise', () => {
    expect([
      periodKey('NEVER', '2026-12-01'),
      periodKey('YEAR', '2026-12-01'),
      periodKey('MONTH', '2026-12-01'),
    ]).toEqual(['', '2026', '2026-12'])
  })
})
