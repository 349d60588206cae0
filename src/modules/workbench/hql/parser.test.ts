import { describe, expect, it } from 'vitest'
import { HqlError } from './lexer.ts'
import { parseHql } from './parser.ts'

const failure = (text: string) => {
  try {
    parseHql(text)
  } catch (error) {
    if (error instanceof HqlError) return { message: error.message, line: error.line, column: error.column }
    throw error
  }
  throw new Error(`parsed: ${text}`)
}

describe(parseHql.name, () => {
  it('reads the whole subset', () => {
    const q = parseHql(
      "select distinct c.code as code, count(distinct ca.id) n, lower(c.name) from Customer as c left join c.customerAccounts ca where (c.code like 'CUST%' or c.name is not null) and not c.id in (1, 2) and c.id between :low and 100 group by c.code, c.name having count(*) >= 1 order by n desc, code",
    )
    expect(q.distinct).toBe(true)
    expect(q.select?.map((s) => s.key)).toEqual(['code', 'n', 'lower(c.name)'])
    expect(q.from).toMatchObject({ entity: 'Customer', alias: 'c' })
    expect(q.joins).toMatchObject([{ outer: true, path: ['c', 'customerAccounts'], alias: 'ca' }])
    expect(q.where?.kind).toBe('and')
    expect(q.groupBy).toHaveLength(2)
    expect(q.having?.kind).toBe('compare')
    expect(q.orderBy.map((o) => o.descending)).toEqual([true, false])
  })

  it('reads keywords in any case and a query starting with from', () => {
    const q = parseHql('FROM Customer C WHERE C.code = :code ORDER BY C.id DESC')
    expect(q.select).toBeUndefined()
    expect(q.orderBy[0]!.descending).toBe(true)
  })

  it('takes a parenthesized expression compared afterwards, and nested conditions', () => {
    expect(parseHql('from Customer c where (c.id) > 5').where).toMatchObject({ kind: 'compare', op: '>' })
    expect(parseHql('from Customer c where ((c.id = 1) or (c.id = 2))').where).toMatchObject({ kind: 'or' })
  })

  it.each([
    ['select c form Customer c', "Unexpected 'form' at line 1, column 10: expected 'from'", 1, 10],
    ['form Customer', "Unexpected 'form' at line 1, column 1: expected 'select' or 'from'", 1, 1],
    ['from Customer c\nwhere c.code = ', 'Unexpected end of query at line 2, column 16', 2, 16],
    ['from Customer c where c.code', 'expected a comparison', 1, 29],
    ['from Customer c where frob(c.code) = 1', "Unknown function 'frob'", 1, 23],
    ['from Customer c where lower(c.code, 2) = 1', 'takes 1 argument', 1, 23],
    ["from Customer c where c.code = 'open", 'not closed', 1, 32],
    ['from Customer c; select 1', 'one statement: ; is not allowed', 1, 16],
    ['from Customer c where c.id = 1 and delete = 2', 'DELETE is not allowed', 1, 36],
    ['from Customer c -- comment', 'Comments are not allowed', 1, 17],
    ['update Customer set code = 1', 'UPDATE is not allowed', 1, 1],
    ['from Customer c where c.code = 1 order by c.code asc desc', 'Unexpected', 1, 54],
  ])('refuses %j with its position', (text, message, line, column) => {
    const found = failure(text)
    expect(found.message).toContain(message)
    expect([found.line, found.column]).toEqual([line, column])
  })

  it.each(['insert', 'InSeRt', 'DROP', 'alter', 'into', 'exec', 'merge', 'truncate', 'grant', 'revoke', 'create'])(
    'refuses the word %s anywhere outside a string',
    (word) => {
      expect(failure(`from Customer c where c.code = 'x' or c.${word} = 1`).message).toContain('not allowed')
      expect(parseHql(`from Customer c where c.code = '${word}'`).where).toBeDefined()
    },
  )

  it('survives deep nesting and long texts without exhausting the stack', () => {
    const deep = `from Customer c where ${'('.repeat(200)}c.id = 1${')'.repeat(200)}`
    expect(failure(deep).message).toContain('nests more than')
    expect(failure(`from Customer c where ${'not '.repeat(500)}c.id = 1`).message).toContain('nests more than')
    expect(failure(`from Customer c where c.code = '${'x'.repeat(30_000)}'`).message).toContain('longer than')
  })
})
