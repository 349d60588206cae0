import { createHash, randomUUID } from 'node:crypto'
import type { Caller } from '../../kernel/caller.ts'
import type { SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { TextStatement } from '../../kernel/db/database.ts'
import type { EntityDef } from '../../kernel/model/index.ts'

const dialect = new PgDialect()

/**
 * Stands for the id of a get by id while its statement is compiled, then replaced by each request's id. Random per
 * process, so no client value can be mistaken for it.
 */
export const ID_PLACEHOLDER = `\u0000id:${randomUUID()}`

/**
 * Statements longer than this are never prepared: a prepared statement holds memory in every connection that ran it
 * (many times its text), for the connection's life (docs/performance.md, "Figures behind the code").
 */
export const MAX_PREPARED_TEXT = 8192

/** A compiled Query API statement, reused by every request of the same shape. */
export interface CompiledStatement {
  /** Unnamed, as a statement's first run goes; `named` gives the form a reused statement runs in. */
  readonly statement: TextStatement
  /** The prepared statement name, for statements without raw SQL and short enough. */
  readonly preparedName: string | undefined
  /** Positions of ID_PLACEHOLDER in the values. */
  readonly idAt: readonly number[]
  /** The statement holds raw SQL from the request: a database error is the client's. */
  readonly usesSql: boolean
  readonly limit: number
  readonly offset: number
  /** The entities the statement reads besides its root: each caller needs their view role (or queryUser). */
  readonly reached: readonly EntityDef[]
}

/**
 * Turns compiled SQL into text and values once. Statements without raw SQL from the request get a name derived from
 * their text, under which PostgreSQL can keep them parsed; raw SQL never does (its text is the client's, in endless
 * variety), nor does a statement longer than MAX_PREPARED_TEXT.
 */
export function toCompiled(
  query: SQL,
  meta: { usesSql: boolean; limit: number; offset: number; reached: readonly EntityDef[] },
): CompiledStatement {
  const { sql: text, params } = dialect.sqlToQuery(query)
  const idAt: number[] = []
  params.forEach((value, i) => {
    if (value === ID_PLACEHOLDER) idAt.push(i)
  })
  const preparedName =
    meta.usesSql || text.length > MAX_PREPARED_TEXT
      ? undefined
      : `obol_q_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`
  return { statement: { text, values: params }, preparedName, idAt, ...meta }
}

/**
 * The form a statement runs in once it has been asked for again: prepared under its name. A shape seen once (a
 * one-off, or a client sending endless variants) never takes one of the pool's limited names.
 */
export function named(compiled: CompiledStatement): CompiledStatement {
  if (compiled.preparedName === undefined) return compiled
  return { ...compiled, statement: { ...compiled.statement, name: compiled.preparedName } }
}

/** The statement with the request's id in place of the placeholder. */
export function withId(compiled: CompiledStatement, id: string): TextStatement {
  if (compiled.idAt.length === 0) return compiled.statement
  const values = [...compiled.statement.values]
  for (const i of compiled.idAt) values[i] = id
  return { ...compiled.statement, values }
}

/** Marks a key whose statement depends on the caller beyond its seller restriction (an entity's row policy). */
const VIEWER_DEPENDENT = Symbol('viewer-dependent')

/**
 * The compiled statements of recent request shapes, least recently used evicted first. A statement compiled under a
 * row policy (saved queries' visibility) depends on the viewer: it is kept per viewer under the same key.
 */
export class StatementCache {
  private readonly capacity: number
  private readonly entries = new Map<string, CompiledStatement | typeof VIEWER_DEPENDENT>()

  constructor(capacity: number) {
    this.capacity = capacity
  }

  get size(): number {
    return this.entries.size
  }

  get(key: string, viewer: Caller): CompiledStatement | undefined {
    const found = this.touch(key)
    return found === VIEWER_DEPENDENT
      ? (this.touch(`${key}\u0001${viewerKey(viewer)}`) as CompiledStatement | undefined)
      : found
  }

  set(key: string, viewer: Caller, compiled: CompiledStatement, viewerDependent: boolean): void {
    if (viewerDependent) {
      this.put(key, VIEWER_DEPENDENT)
      this.put(`${key}\u0001${viewerKey(viewer)}`, compiled)
    } else this.put(key, compiled)
  }

  private touch(key: string): CompiledStatement | typeof VIEWER_DEPENDENT | undefined {
    const found = this.entries.get(key)
    if (found !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, found)
    }
    return found
  }

  private put(key: string, value: CompiledStatement | typeof VIEWER_DEPENDENT): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string
      this.entries.delete(oldest)
    }
  }
}

function viewerKey(viewer: Caller): string {
  return JSON.stringify([viewer.username, viewer.groups, [...viewer.roles].sort()])
}
