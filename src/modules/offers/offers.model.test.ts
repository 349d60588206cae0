import { describe, expect, it } from 'vitest'
import { AppError } from '../../kernel/errors.ts'
import {
  answerPage,
  isInstantText,
  linkHeader,
  listConditions,
  offerWriteOf,
  parseExpand,
  parseFields,
  parseFilters,
  parseRange,
  parseSort,
  readStatusWord,
  statusesOfWord,
} from './offers.model.ts'

/** The problems of the 400 a call throws. */
function problems(call: () => unknown) {
  try {
    call()
  } catch (error) {
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('VALIDATION_FAILED')
    return (error as AppError).details ?? []
  }
  throw new Error('expected a 400')
}

describe(parseRange.name, () => {
  it('reads a-b, 0-24 by default, at most 100 offers', () => {
    expect(parseRange(undefined)).toEqual({ first: 0, last: 24 })
    expect(parseRange('10-19')).toEqual({ first: 10, last: 19 })
    expect(parseRange('5-5')).toEqual({ first: 5, last: 5 })
    expect(parseRange('0-99')).toEqual({ first: 0, last: 99 })
  })

  it.each(['', 'a-b', '1', '3-1', '0-100', '-1-3', '1-2-3', '1.5-3', '0x1-2'])(
    'refuses %j naming the field',
    (text) => {
      expect(problems(() => parseRange(text, 'range'))).toEqual([{ field: 'range', message: expect.any(String) }])
    },
  )
})

describe(answerPage.name, () => {
  it.each([
    [{ first: 0, last: 24 }, 10, 200, 'offers 0-9/10'],
    [{ first: 0, last: 9 }, 10, 200, 'offers 0-9/10'],
    [{ first: 0, last: 8 }, 10, 206, 'offers 0-8/10'],
    [{ first: 5, last: 24 }, 10, 206, 'offers 5-9/10'],
    [{ first: 9, last: 9 }, 10, 206, 'offers 9-9/10'],
    [{ first: 10, last: 19 }, 10, 416, 'offers */10'],
    [{ first: 0, last: 24 }, 0, 200, 'offers */0'],
    [{ first: 1, last: 24 }, 0, 416, 'offers */0'],
  ])('answers %j of %i offers with %i and %s', (range, total, status, contentRange) => {
    expect(answerPage(range, total)).toMatchObject({ status, contentRange })
  })
})

describe(linkHeader.name, () => {
  const rels = (header: string | undefined) =>
    Object.fromEntries(
      (header ?? '').split(', ').map((part) => {
        const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part)!
        return [rel, url] as [string, string]
      }),
    )

  it('links the neighbouring pages of the same size, keeping the other parameters', () => {
    const header = linkHeader(
      'https://billing.example/obol/',
      '/v1/catalog/offers?status=draft&range=10-19',
      { first: 10, last: 19 },
      45,
    )
    expect(rels(header)).toEqual({
      first: 'https://billing.example/obol/v1/catalog/offers?status=draft&range=0-9',
      prev: 'https://billing.example/obol/v1/catalog/offers?status=draft&range=0-9',
      next: 'https://billing.example/obol/v1/catalog/offers?status=draft&range=20-29',
      last: 'https://billing.example/obol/v1/catalog/offers?status=draft&range=35-44',
    })
  })

  it('has no prev on the first page, no next on the last, a short prev near the start, nothing when empty', () => {
    expect(Object.keys(rels(linkHeader('http://x', '/o', { first: 0, last: 9 }, 45)))).toEqual([
      'first',
      'next',
      'last',
    ])
    expect(Object.keys(rels(linkHeader('http://x', '/o', { first: 40, last: 49 }, 45)))).toEqual([
      'first',
      'prev',
      'last',
    ])
    expect(rels(linkHeader('http://x', '/o?range=3-12', { first: 3, last: 12 }, 45)).prev).toBe('http://x/o?range=0-2')
    expect(linkHeader('http://x', '/o', { first: 0, last: 9 }, 0)).toBeUndefined()
  })
})

describe(parseSort.name, () => {
  it('reads ascending and descending keys and ends with the code', () => {
    expect(parseSort(['name', '-valid_from'])).toEqual([
      { field: 'name', descending: false },
      { field: 'valid_from', descending: true },
      { field: 'code', descending: false },
    ])
    expect(parseSort(['-code'])).toEqual([{ field: 'code', descending: true }])
    expect(parseSort([])).toEqual([{ field: 'code', descending: false }])
  })

  it.each([[['price']], [['name', '-name']], [['--name']]])('refuses %j', (items) => {
    expect(problems(() => parseSort(items))[0]?.field).toBe('sort')
  })
})

describe('projection and expansion', () => {
  it('always keeps the code and refuses unknown fields', () => {
    expect(parseFields(['name', ' status '])).toEqual(['code', 'name', 'status'])
    expect(parseFields(undefined)).toBeUndefined()
    expect(parseFields([''])).toBeUndefined()
    expect(problems(() => parseFields(['products']))[0]?.message).toContain('expand=products')
    expect(parseExpand(['products'])).toEqual({ products: true })
    expect(parseExpand(undefined)).toEqual({ products: false })
    expect(problems(() => parseExpand(['sellers']))[0]?.field).toBe('expand')
  })
})

describe('status words', () => {
  it.each([
    ['draft', ['IN_STUDY', 'IN_DESIGN', 'IN_TEST']],
    ['Ready', ['ACTIVE']],
    ['LIVE', ['LAUNCHED']],
    ['retired', ['RETIRED', 'OBSOLETE', 'REJECTED']],
    ['RETIRED', ['RETIRED']],
    ['launched', ['LAUNCHED']],
    ['in_design', ['IN_DESIGN']],
    ['paused', undefined],
  ])('%s names %j', (word, statuses) => {
    expect(statusesOfWord(word)).toEqual(statuses)
  })

  it.each([
    ['draft', undefined, 'IN_STUDY'],
    ['draft', 'IN_TEST', 'IN_TEST'],
    ['draft', 'ACTIVE', 'IN_STUDY'],
    ['ready', 'IN_TEST', 'ACTIVE'],
    ['live', 'ACTIVE', 'LAUNCHED'],
    ['retired', 'LAUNCHED', 'RETIRED'],
    ['retired', 'OBSOLETE', 'OBSOLETE'],
    ['retired', 'REJECTED', 'REJECTED'],
    ['RETIRED', 'OBSOLETE', 'RETIRED'],
    ['In_Study', 'IN_TEST', 'IN_STUDY'],
    ['sleeping', 'IN_TEST', undefined],
  ] as const)('%s on an offer in %s sets %s', (word, current, expected) => {
    expect(readStatusWord(word, current)).toBe(expected)
  })
})

describe(isInstantText.name, () => {
  it.each(['2026-03-01', '2026-03-01T00:00:00Z', '2026-03-01T10:15Z', '2026-03-01T10:15:30.123+02:00', '2024-02-29'])(
    'accepts %s',
    (value) => expect(isInstantText(value)).toBe(true),
  )
  it.each([
    '2026-02-30',
    '2026-13-01',
    '2026-03-01T24:00:00Z',
    '2026-03-01T10:00:00',
    '1 March',
    '2026-3-1',
    '2025-02-29',
  ])('refuses %s', (value) => expect(isInstantText(value)).toBe(false))
})

describe(parseFilters.name, () => {
  it('reads value lists, single values and operator objects for each kind of field', () => {
    expect(
      parseFilters({
        code: ['A', 'B'],
        name: { contains: 'fibre', ne: null },
        status: { ne: 'retired' },
        valid_to: { gt: '2026-01-01', eq: null },
        seller_codes: { contains: ['S1', 'S2'], ne: 'S3' },
        product_codes: 'P1',
      }),
    ).toEqual([
      { kind: 'oneOf', field: 'code', values: ['A', 'B'] },
      { kind: 'contains', field: 'name', value: 'fibre' },
      { kind: 'compare', field: 'name', op: 'ne', value: null },
      { kind: 'status', statuses: ['RETIRED', 'OBSOLETE', 'REJECTED'], negate: true },
      { kind: 'compare', field: 'valid_to', op: 'gt', value: '2026-01-01' },
      { kind: 'compare', field: 'valid_to', op: 'eq', value: null },
      { kind: 'list', field: 'seller_codes', match: 'all', values: ['S1', 'S2'] },
      { kind: 'list', field: 'seller_codes', match: 'none', values: ['S3'] },
      { kind: 'list', field: 'product_codes', match: 'all', values: ['P1'] },
    ])
    expect(parseFilters({ status: ['draft', 'ACTIVE'] })).toEqual([
      { kind: 'status', statuses: ['IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'ACTIVE'], negate: false },
    ])
  })

  it.each([
    [{ price: 1 }, 'filters.price'],
    [{ code: { lt: 1 } }, 'filters.code.lt'],
    [{ code: { eq: null } }, 'filters.code.eq'],
    [{ name: { gt: null } }, 'filters.name.gt'],
    [{ name: true }, 'filters.name'],
    [{ status: { lt: 'live' } }, 'filters.status.lt'],
    [{ status: ['live', 'dead'] }, 'filters.status'],
    [{ valid_from: { contains: '2026' } }, 'filters.valid_from.contains'],
    [{ valid_from: ['2026-02-30'] }, 'filters.valid_from'],
    [{ category_codes: { gt: 'A' } }, 'filters.category_codes.gt'],
    [{ category_codes: { in: 'A' } }, 'filters.category_codes.in'],
    [{ seller_codes: {} }, 'filters.seller_codes'],
  ])('refuses %j naming %s', (filters, field) => {
    expect(problems(() => parseFilters(filters))).toEqual([{ field, message: expect.any(String) }])
  })

  it('reads the list query: status words, categories and sellers as comma lists', () => {
    expect(listConditions({ status: 'live, IN_TEST', category: 'C1,C2', seller: '' })).toEqual([
      { kind: 'status', statuses: ['IN_TEST', 'LAUNCHED'], negate: false },
      { kind: 'list', field: 'category_codes', match: 'any', values: ['C1', 'C2'] },
    ])
    expect(problems(() => listConditions({ status: 'gone' }))[0]?.field).toBe('status')
  })
})

describe(offerWriteOf.name, () => {
  it('maps the snake_case fields onto the catalog write, leaving unsent fields out', () => {
    expect(
      offerWriteOf({
        name: 'N',
        description: null,
        status: 'ready',
        valid_from: '2026-01-01',
        valid_to: null,
        product_codes: ['P'],
        category_codes: ['C'],
        seller_codes: ['S'],
        discount_plan_codes: ['D'],
        auto_end_of_engagement: true,
        attributes: { speed: 10 },
        offer_components: [{ code: 'P', default_quantity: '2', max_quantity: null }],
        offer_service_templates: [{ code: 'SE', mandatory: true }],
      }),
    ).toEqual({
      name: 'N',
      description: null,
      status: 'ready',
      validFrom: '2026-01-01',
      validTo: null,
      productCodes: ['P'],
      offerTemplateCategories: ['C'],
      sellers: ['S'],
      discountPlans: ['D'],
      autoEndOfEngagement: true,
      attributes: { speed: 10 },
      offerComponents: [{ productCode: 'P', defaultQuantity: '2', maxQuantity: null }],
      offerServiceTemplates: [{ serviceTemplateCode: 'SE', mandatory: true }],
    })
    expect(offerWriteOf({})).toEqual({})
  })

  it('refuses instants that are not ISO-8601, naming each field', () => {
    expect(problems(() => offerWriteOf({ valid_from: 'today', valid_to: '2026-02-30' }))).toEqual([
      { field: 'valid_from', message: expect.stringContaining('ISO-8601') },
      { field: 'valid_to', message: expect.stringContaining('ISO-8601') },
    ])
  })
})
