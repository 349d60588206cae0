import { describe, expect, it } from 'vitest'
import { bodyReviver, decimalJson, documentDecimals, exactBodyNumbers, parseDatabaseJson } from './decimal-json.ts'

const parseBody = (text: string): unknown => JSON.parse(text, exactBodyNumbers)

describe(decimalJson.name, () => {
  it.each([
    ['1234567890123456.78', '1234567890123456.78'],
    ['100.000000000000', '100'],
    ['-0', '0'],
    ['0.000000000001', '0.000000000001'],
    ['123456789012345678.123456789012', '123456789012345678.123456789012'],
  ])('writes %s as the JSON number %s', (value, written) => {
    expect(JSON.stringify({ a: decimalJson(value) })).toBe(`{"a":${written}}`)
  })
})

describe(exactBodyNumbers.name, () => {
  it('keeps numbers a double holds exactly, whatever their spelling', () => {
    expect(parseBody('{"a":10,"b":49.99,"c":1.50,"d":1e2,"e":-0.5,"f":[0.1]}')).toEqual({
      a: 10,
      b: 49.99,
      c: 1.5,
      d: 100,
      e: -0.5,
      f: [0.1],
    })
  })

  it.each([
    ['12345678901234.5678', '12345678901234.5678'],
    ['9007199254740993', '9007199254740993'],
    ['0.10000000000000000001', '0.10000000000000000001'],
    ['1.23456789012345678e5', '123456.789012345678'],
    ['1e400', '1e400'],
  ])('reads %s, which a double cannot hold, as the decimal text %s', (literal, text) => {
    expect(parseBody(`{"q":${literal}}`)).toEqual({ q: text })
  })
})

describe(bodyReviver.name, () => {
  it.each(['{"q":10,"p":49.99}', '{"q":123456789012345}', '{"q":0.12345678901234}', '{"q":1e99,"code":"PR_1"}'])(
    'skips the (slower) reviver for %s: every number in it comes back from a double as written',
    (text) => expect(bodyReviver(text)).toBeUndefined(),
  )

  it.each(['{"q":1234567890123456}', '{"q":12345678901234.5678}', '{"q":0.1000000000000001}', '{"q":1e400}'])(
    'uses it for %s',
    (text) => expect(bodyReviver(text)).toBe(exactBodyNumbers),
  )
})

describe(parseDatabaseJson.name, () => {
  it('keeps numbers a double cannot hold as exact JSON numbers, and the others as numbers', () => {
    const parsed = parseDatabaseJson('{"a":12345678901.123456789012,"b":20.0000,"c":"x"}') as Record<string, unknown>
    expect(parsed.b).toBe(20)
    expect(JSON.stringify(parsed)).toBe('{"a":12345678901.123456789012,"b":20,"c":"x"}')
  })
})

describe(documentDecimals.name, () => {
  it('types decimal schemas as numbers in a copy, leaving the route schemas alone', () => {
    const schema = {
      properties: {
        a: { format: 'decimal' },
        b: { format: 'decimal', 'x-nullable': true },
        c: { type: 'string', format: 'date' },
      },
    }
    expect(documentDecimals({ schema })).toEqual({
      schema: {
        properties: {
          a: { format: 'decimal', type: 'number' },
          b: { format: 'decimal', type: ['number', 'null'] },
          c: { type: 'string', format: 'date' },
        },
      },
    })
    expect(schema.properties.a).toEqual({ format: 'decimal' })
  })
})
