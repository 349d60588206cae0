import { describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import type { Caller } from '../../kernel/caller.ts'
import { ID_PLACEHOLDER, MAX_PREPARED_TEXT, named, StatementCache, toCompiled, withId } from './statement-cache.ts'

const viewer = (username: string, roles: string[] = []): Caller => ({
  username,
  groups: [],
  roles: new Set(roles),
  sellerCodes: null,
})
const compiled = (text: string) => toCompiled(sql.raw(text), { usesSql: false, limit: 100, offset: 0, reached: [] })

describe('compiled statements', () => {
  it('run unnamed the first time, then under a name derived from their text', () => {
    const a = compiled('select 1')
    expect(a.statement.name).toBeUndefined()
    expect(named(a).statement.name).toMatch(/^obol_q_[\w-]{32}$/)
    expect(named(compiled('select 1')).statement.name).toBe(named(a).statement.name)
    expect(named(compiled('select 2')).statement.name).not.toBe(named(a).statement.name)
  })

  it('never name raw SQL from a request, nor a statement too long to keep prepared', () => {
    expect(
      named(toCompiled(sql.raw('select 1'), { usesSql: true, limit: 1, offset: 0, reached: [] })).statement.name,
    ).toBeUndefined()
    const long = `select '${'x'.repeat(MAX_PREPARED_TEXT)}'`
    expect(named(compiled(long)).statement.name).toBeUndefined()
    expect(named(compiled(long)).statement.text).toBe(long)
  })

  it('put the id of each request where the placeholder stood, leaving the cached values untouched', () => {
    const byId = toCompiled(
      sql`select ${'x'} where id = ${ID_PLACEHOLDER}::bigint or parent = ${ID_PLACEHOLDER}::bigint`,
      { usesSql: false, limit: 1, offset: 0, reached: [] },
    )
    expect(byId.idAt).toEqual([1, 2])
    expect(withId(byId, '42').values).toEqual(['x', '42', '42'])
    expect(withId(byId, '7').values).toEqual(['x', '7', '7'])
    expect(byId.statement.values).toEqual(['x', ID_PLACEHOLDER, ID_PLACEHOLDER])
  })
})

describe('StatementCache', () => {
  it('evicts the least recently used shape beyond its capacity', () => {
    const cache = new StatementCache(2)
    const someone = viewer('someone')
    cache.set('a', someone, compiled('select 1'), false)
    cache.set('b', someone, compiled('select 2'), false)
    expect(cache.get('a', someone)).toBeDefined()
    cache.set('c', someone, compiled('select 3'), false)
    expect(cache.get('b', someone)).toBeUndefined()
    expect(cache.get('a', someone)?.statement.text).toBe('select 1')
    expect(cache.get('c', someone)?.statement.text).toBe('select 3')
    expect(cache.size).toBe(2)
  })

  it('keeps a statement that depends on the viewer to that viewer', () => {
    const cache = new StatementCache(10)
    cache.set('q', viewer('alice'), compiled('select alice'), true)
    expect(cache.get('q', viewer('alice'))?.statement.text).toBe('select alice')
    expect(cache.get('q', viewer('bob'))).toBeUndefined()
    expect(cache.get('q', viewer('alice', ['queryManagement']))).toBeUndefined()
    // Names and groups are compared whole, whatever characters they hold.
    expect(cache.get('q', { username: 'alice', groups: [''], roles: new Set(), sellerCodes: null })).toBeUndefined()
    cache.set('q', viewer('bob'), compiled('select bob'), true)
    expect(cache.get('q', viewer('alice'))?.statement.text).toBe('select alice')
    expect(cache.get('q', viewer('bob'))?.statement.text).toBe('select bob')
  })
})
