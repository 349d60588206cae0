import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Decimal } from 'decimal.js'
import {
  evaluate,
  FormulaError,
  parseFormula,
  parsePriceFormula,
  priceScope,
  PRICE_VARIABLES,
  type ElValue,
  type PriceFormulaContext,
} from './index.ts'

const context: PriceFormulaContext = {
  quantity: '42.5',
  attributes: { TIER: 'GOLD', size: '12', flag: 'true', blank: '' },
  charge: { code: 'CH' },
  subscription: { code: 'SUB', date: '2026-03-01' },
  offer: { code: 'OF' },
  product: { code: 'PR' },
}

/** Runs `action`; any throw other than a FormulaError fails the property. */
function onlyFormulaErrors(action: () => unknown): unknown {
  try {
    return action()
  } catch (error) {
    if (error instanceof FormulaError) {
      expect(Number.isInteger(error.position)).toBe(true)
      expect(error.position).toBeGreaterThanOrEqual(0)
      return error
    }
    throw error
  }
}

const NAMES = [
  ...PRICE_VARIABLES,
  'TIER',
  'size',
  'flag',
  'blank',
  'code',
  'date',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'globalThis',
  'process',
  'require',
  'this',
  'eval',
  'Function',
  'Object',
  'size',
  'get',
]

const numberLiteral = fc.oneof(
  fc.constantFrom('0', '-0', '0.1', '0.2', '1e3', '9e999', '1e-999', '.5', '1.', '123456789012345678901234567890'),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => Math.abs(d).toString()),
)
const stringLiteral = fc.string({ maxLength: 8 }).map((s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`)
const name = fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/))

/** Random expressions over the whole grammar, valid or not: operators, functions (known or not), members, literals. */
const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberLiteral,
    stringLiteral,
    fc.constantFrom('true', 'false', 'null'),
    name,
    fc.tuple(tie('expr'), name).map(([o, p]) => `${o}.${p}`),
    fc.tuple(tie('expr'), tie('expr')).map(([o, p]) => `${o}[${p}]`),
    fc
      .tuple(
        tie('expr'),
        fc.constantFrom(
          '+',
          '-',
          '*',
          '/',
          '%',
          'div',
          'mod',
          '==',
          '!=',
          '<',
          '<=',
          '>',
          '>=',
          'eq',
          'ne',
          'lt',
          'le',
          'gt',
          'ge',
          '&&',
          '||',
          'and',
          'or',
        ),
        tie('expr'),
      )
      .map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(fc.constantFrom('-', '!', 'not ', 'empty '), tie('expr')).map(([op, a]) => `${op}${a}`),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([a, b, c]) => `${a} ? ${b} : ${c}`),
    tie('expr').map((a) => `(${a})`),
    fc
      .tuple(
        fc.constantFrom('min', 'max', 'abs', 'round', 'ceil', 'floor', 'pow', 'eval'),
        fc.array(tie('expr'), { maxLength: 3 }),
      )
      .map(([f, args]) => `${f}(${args.join(', ')})`),
  ),
})).expr

function isElValue(value: unknown): value is ElValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (Decimal.isDecimal(value)) return value.isFinite()
  if (value instanceof Map) return [...(value as Map<unknown, unknown>).values()].every(isElValue)
  if (Array.isArray(value)) return value.every(isElValue)
  return false
}

describe('the formula language, on any input', () => {
  it('never throws anything but a formula error while parsing arbitrary text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.string().map((s) => `#{${s}}`),
        ),
        (text) => {
          const result = onlyFormulaErrors(() => parsePriceFormula(text))
          if (result instanceof FormulaError) expect(result.position).toBeLessThanOrEqual(Math.max(text.length, 2000))
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('never throws anything but a formula error while parsing or evaluating grammar-shaped formulas', () => {
    const snapshot = JSON.stringify(context)
    fc.assert(
      fc.property(expression, (source) => {
        const result = onlyFormulaErrors(() => evaluate(parsePriceFormula(`#{${source}}`), priceScope(context)))
        if (!(result instanceof FormulaError)) expect(isElValue(result)).toBe(true)
      }),
      { numRuns: 3000 },
    )
    // Evaluation never writes: neither the context nor any prototype changed.
    expect(JSON.stringify(context)).toBe(snapshot)
    expect(Object.keys(Object.prototype)).toEqual([])
    expect(Object.getOwnPropertyNames(Map.prototype)).not.toContain('polluted')
  })

  it('never reaches outside its context: a property is exactly what the context holds, or null', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom(...NAMES)), (key) => {
        const quoted = `'${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
        const value = evaluate(
          parseFormula(`#{attributes[${quoted}]}`, { variables: ['attributes'] }),
          priceScope(context),
        )
        const expected = Object.hasOwn(context.attributes, key) ? context.attributes[key] : null
        expect(value).toBe(expected)
      }),
      { numRuns: 2000 },
    )
  })

  it('knows no name beyond the declared variables', () => {
    fc.assert(
      fc.property(name, (variable) => {
        const result = onlyFormulaErrors(() => parsePriceFormula(`#{${variable}}`))
        const declared = (PRICE_VARIABLES as readonly string[]).includes(variable)
        const keyword = ['true', 'false', 'null', 'empty', 'not', 'and', 'or', 'div', 'mod'].includes(variable)
        if (!declared && !keyword) expect(result).toBeInstanceOf(FormulaError)
      }),
    )
  })

  it('adds, subtracts and multiplies decimals exactly', () => {
    const Exact = Decimal.clone({ precision: 100 })
    const decimal = fc
      .tuple(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.integer({ min: 0, max: 12 }))
      .map(([digits, scale]) => new Exact(digits.toString()).dividedBy(new Exact(10).pow(scale)).toFixed())
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const scope = priceScope({ ...context, attributes: { a, b } })
        const run = (op: string) =>
          (evaluate(parsePriceFormula(`#{attributes.a ${op} attributes.b}`), scope) as Decimal).toFixed()
        expect(run('+')).toBe(new Exact(a).plus(b).toFixed())
        expect(run('-')).toBe(new Exact(a).minus(b).toFixed())
        expect(run('*')).toBe(new Exact(a).times(b).toFixed())
      }),
    )
  })
})
