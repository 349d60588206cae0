import { describe, expect, it } from 'vitest'
import { CODE_PATTERN } from '../resources/resource.model.ts'
import { decimalStringPattern } from './schemas.ts'
import { bodyValidator } from './validation.ts'

/** The problems a body gets against `properties` (one field each), as a 400 would list them. */
function problems(properties: Record<string, object>, body: Record<string, unknown>) {
  return bodyValidator({ type: 'object', properties })(body)
}

const decimal = { anyOf: [{ type: 'number' }, { type: 'string', pattern: decimalStringPattern(18) }] }

describe('validation problems of values with alternatives (anyOf, oneOf)', () => {
  it('a decimal string that is not a decimal: one problem, in words', () => {
    expect(problems({ amount: decimal }, { amount: 'ten' })).toEqual([
      {
        field: 'amount',
        message: 'expected a decimal number: a JSON number, or a string of at most 18 integer digits and 12 decimals',
      },
    ])
  })

  it('a value of no accepted type: the types accepted', () => {
    expect(problems({ amount: decimal }, { amount: true })).toEqual([
      { field: 'amount', message: 'expected a number or a string' },
    ])
    const limit = { anyOf: [{ type: 'integer' }, { type: 'string', enum: ['all'] }] }
    expect(problems({ limit }, { limit: true })).toEqual([
      { field: 'limit', message: 'expected an integer or a string' },
    ])
  })

  it('a list that may also be null: the item refused, not "expected null"', () => {
    const codes = { anyOf: [{ type: 'array', items: { type: 'string', minLength: 1 } }, { type: 'null' }] }
    expect(problems({ sellerCodes: codes }, { sellerCodes: ['A', ''] })).toEqual([
      { field: 'sellerCodes.1', message: 'must not be empty' },
    ])
  })

  it('a text or a list of texts: the long item named, not "expected a string"', () => {
    const fields = {
      anyOf: [
        { type: 'string', maxLength: 10 },
        { type: 'array', items: { type: 'string', maxLength: 10 } },
      ],
    }
    expect(problems({ genericFields: fields }, { genericFields: ['code', 'x'.repeat(11)] })).toEqual([
      { field: 'genericFields.1', message: 'expected at most 10 characters' },
    ])
  })

  it('a date that is neither form: one problem naming both', () => {
    const instant = {
      anyOf: [{ type: 'string', format: 'date-time' }, { type: 'string', format: 'date' }, { type: 'null' }],
    }
    expect(problems({ validFrom: instant }, { validFrom: 'tomorrow' })).toEqual([
      { field: 'validFrom', message: 'expected a valid date-time or date' },
    ])
  })

  it('one of a few values: one problem listing them', () => {
    const kind = { anyOf: [{ const: 'A' }, { const: 'B' }, { enum: ['C', 'D'] }] }
    expect(problems({ kind }, { kind: 5 })).toEqual([{ field: 'kind', message: 'expected one of A, B, C, D' }])
  })

  it('a value several alternatives of a oneOf accept: the oneOf says it', () => {
    const count = { oneOf: [{ type: 'number' }, { type: 'integer' }] }
    expect(problems({ count }, { count: 5 })).toEqual([{ field: 'count', message: 'does not have an accepted form' }])
  })

  it('alternatives inside alternatives: the inner refusal of the fitting branch', () => {
    const filter = {
      anyOf: [{ type: 'object', properties: { amount: decimal }, additionalProperties: false }, { type: 'null' }],
    }
    expect(problems({ filter }, { filter: { amount: 'ten', other: 1 } })).toEqual([
      { field: 'filter.other', message: 'is not a known field' },
      {
        field: 'filter.amount',
        message: 'expected a decimal number: a JSON number, or a string of at most 18 integer digits and 12 decimals',
      },
    ])
  })

  it('each item of a list: its own problem, whatever the other items did', () => {
    const rows = { type: 'array', items: { type: 'object', properties: { price: decimal } } }
    expect(problems({ rows }, { rows: [{ price: 'x' }, { price: true }] })).toEqual([
      {
        field: 'rows.0.price',
        message: 'expected a decimal number: a JSON number, or a string of at most 18 integer digits and 12 decimals',
      },
      { field: 'rows.1.price', message: 'expected a number or a string' },
    ])
    const limits = {
      type: 'array',
      items: {
        anyOf: [
          { type: 'number', minimum: 0 },
          { type: 'string', minLength: 2 },
        ],
      },
    }
    expect(problems({ limits }, { limits: [-1, 'a'] })).toEqual([
      { field: 'limits.0', message: 'expected a number of 0 or more' },
      { field: 'limits.1', message: 'expected at least 2 characters' },
    ])
  })
})

describe('validation problems of patterns', () => {
  it('an empty code is said to be empty, not also refused by the code pattern', () => {
    const code = { type: 'string', minLength: 1, pattern: CODE_PATTERN }
    expect(problems({ code }, { code: '' })).toEqual([{ field: 'code', message: 'must not be empty' }])
    expect(problems({ code }, { code: 'bad code' })).toEqual([
      {
        field: 'code',
        message: 'expected a code: letters, digits, _, . and -, starting with a letter or a digit (no spaces)',
      },
    ])
  })
})
