import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compactJson } from './json-text.ts'

describe(compactJson.name, () => {
  it('drops the whitespace PostgreSQL writes between tokens, not inside strings', () => {
    expect(compactJson('{"id" : 4, "name" : "a  b", "x" : [1, \n 2]}')).toBe('{"id":4,"name":"a  b","x":[1,2]}')
    expect(compactJson('{"q" : "say \\"hi\\" , ok", "n" : 1234567890123456.78}')).toBe(
      '{"q":"say \\"hi\\" , ok","n":1234567890123456.78}',
    )
    expect(compactJson('[]')).toBe('[]')
  })

  it('keeps the value of any JSON document', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const spaced = JSON.stringify(value, null, 2)
        expect(JSON.parse(compactJson(spaced))).toEqual(JSON.parse(spaced))
        expect(compactJson(spaced)).toBe(JSON.stringify(JSON.parse(spaced)))
      }),
    )
  })
})
