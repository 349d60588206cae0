import { describe, expect, it } from 'vitest'
import { registry } from '../../kernel/model/index.ts'
import {
  buildQuery,
  parseSortOrder,
  requestFromLegacyBody,
  requestFromQueryParameters,
  splitList,
} from './request-parser.ts'

const context = { registry, allowSql: false, customFields: () => new Map(), defaultLimit: 100 }

describe(splitList.name, () => {
  it('splits on commas outside parentheses and quotes', () => {
    expect(splitList(" code, COALESCE(SUM(amount), 0),MAX(code) = 'a,b' ,, ")).toEqual([
      'code',
      'COALESCE(SUM(amount), 0)',
      "MAX(code) = 'a,b'",
    ])
  })
})

describe(buildQuery.name, () => {
  it('builds a frozen AST with id appended to the sort and the limit capped', () => {
    const { ast } = buildQuery(
      registry.get('Customer'),
      { sortBy: ['seller.code'], sortOrder: ['desc'], limit: 5000 },
      context,
    )
    expect(Object.isFrozen(ast) && Object.isFrozen(ast.orderBy)).toBe(true)
    expect(ast.limit).toBe(1000)
    expect(ast.orderBy).toEqual([
      { by: { kind: 'field', target: { relations: ['seller'], field: 'code', leftJoin: true } }, descending: true },
      { by: { kind: 'field', target: { relations: [], field: 'id' } }, descending: true },
    ])
  })

  it('writes non-nested relations as references and leaves collections out', () => {
    const { ast } = buildQuery(registry.get('Customer'), {}, context)
    expect(ast.select).toMatchObject({
      kind: 'entities',
      projection: {
        relations: [
          { name: 'seller', shape: 'reference' },
          { name: 'title', shape: 'reference' },
        ],
      },
    })
  })

  it('switches to aggregation on an aggregate field, keyed by the expression as written', () => {
    const { ast } = buildQuery(
      registry.get('BillingAccount'),
      { fields: ['country.code', 'count(id)'], groupBy: ['country.code'] },
      context,
    )
    expect(ast.select).toMatchObject({
      kind: 'aggregate',
      aggregation: {
        columns: [
          { key: 'country.code', kind: 'field' },
          { key: 'count(id)', kind: 'aggregate', expr: { fn: 'COUNT' } },
        ],
      },
    })
  })
})

describe('request dialects', () => {
  it('maps the legacy POST names onto the GET names', () => {
    expect(requestFromLegacyBody({ genericFields: ['code'], nestedEntities: 'seller', nestedDepth: 1 })).toMatchObject({
      fields: ['code'],
      nested: ['seller'],
      depth: 1,
    })
    expect(() => requestFromLegacyBody({ fields: 'code' })).toThrow('the POST body calls it genericFields')
    expect(() => requestFromLegacyBody({ colour: 'code' })).toThrow('colour: is not a known field')
  })

  it('reads GET parameters as text', () => {
    expect(requestFromQueryParameters({ limit: '5', forceCount: 'TRUE', fields: 'a,b' })).toMatchObject({
      limit: 5,
      forceCount: true,
      fields: ['a', 'b'],
    })
    expect(() => requestFromQueryParameters({ offset: '-1' })).toThrow('offset: expected an integer of 0 or more')
  })

  it.each(['ASC', 'asc', 'ascending', 'DESC', 'Descending'])('accepts sortOrder %s', (order) => {
    expect(parseSortOrder(order)).toBe(order.toUpperCase().startsWith('DESC'))
  })
})
