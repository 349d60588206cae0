import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { sql, type SQL } from 'drizzle-orm'
import pg from 'pg'
import { QUERY_ROLE } from './query-role.ts'

export type Db = PgDatabase<PgQueryResultHKT>
/** A drizzle handle usable inside or outside a transaction. */
export type Tx = Db

export interface PoolStats {
  total: number
  idle: number
  waiting: number
}

/** A statement as text and driver-ready values, as Drizzle's dialect writes it. */
export interface TextStatement {
  readonly text: string
  readonly values: readonly unknown[]
  /**
   * Server only: the name of a prepared statement, parsed once per connection and then only bound and executed.
   * The same name must always carry the same text.
   */
  readonly name?: string | undefined
}

/**
 * At most this many prepared statement names per read pool: each connection keeps every statement it prepared until
 * it closes (the pool closes a connection idle for 10 s). With statements of at most 8 KB, the worst case is a few
 * hundred megabytes of server memory across the pool's connections; a few kilobytes each in practice.
 */
export const MAX_PREPARED_STATEMENTS = 100

/** One database, embedded (PGlite) or server (node-postgres pool), behind the same Drizzle handle. */
export interface Database {
  readonly kind: 'pglite' | 'postgres'
  readonly db: Db
  /** The raw PGlite instance (embedded only): pg-boss runs on it through its adapter. */
  readonly pglite: PGlite | undefined
  /** The connection URL (server only): pg-boss opens its own small pool. */
  readonly url: string | undefined
  poolStats(): PoolStats
  /**
   * Runs one statement of the query layer read-only and as the query role (SELECT on the registry's tables only):
   * on a server in the read pool, whose sessions are read-only, with the timeout and the role (a named statement is
   * prepared once per connection, up to MAX_PREPARED_STATEMENTS names, then run unnamed); on PGlite in a read-only
   * transaction that switches to the role with SET LOCAL ROLE.
   */
  readOnlyQuery<T>(statementTimeoutMs: number, statement: TextStatement): Promise<T[]>
  /**
   * A handle whose commits do not wait for the write-ahead log to reach disk (`synchronous_commit = off`): for
   * bookkeeping whose last fraction of a second may be lost in a database crash — the workbench audit and governor
   * counts, written around every workbench query — never for money, balances or states. PGlite: the same handle.
   */
  readonly relaxed: Db
  close(): Promise<void>
}

export async function openPglite(options: { dataDir?: string; loadDataDir?: Blob } = {}): Promise<Database> {
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true })
  const pglite = await PGlite.create({
    // Trigram indexes serve fullTextFilter on huge entities (migrations/0015_opencell.sql).
    extensions: { pg_trgm },
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  })
  const db = drizzlePglite(pglite) as unknown as Db
  return {
    kind: 'pglite',
    db,
    pglite,
    url: undefined,
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    relaxed: db,
    readOnlyQuery: async <T>(_statementTimeoutMs: number, statement: TextStatement) =>
      pglite.transaction(async (tx) => {
        await tx.exec(`set transaction read only; set local role ${QUERY_ROLE}`)
        return (await tx.query<T>(statement.text, [...statement.values])).rows
      }),
    close: () => pglite.close(),
  }
}

/**
 * How long a request waits for a pooled connection (a new one, or a busy pool's next free one) before it fails with
 * 503 DATABASE_UNAVAILABLE, instead of hanging while a server is unreachable.
 */
const CONNECTION_TIMEOUT_MS = 10_000

export function openPostgres(
  url: string,
  options: { max?: number; applicationName?: string; readUrl?: string } = {},
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'obol',
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
  })
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined)
  const db = drizzlePg(pool) as unknown as Db
  let closed = false
  // Connections whose commits do not wait for the disk (see Database.relaxed), opened on first use.
  let relaxedPool: pg.Pool | undefined
  let relaxed: Db | undefined
  const relaxedDb = (): Db => {
    if (relaxed) return relaxed
    relaxedPool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      application_name: `${options.applicationName ?? 'obol'}-relaxed`,
      connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
      options: '-c synchronous_commit=off',
    })
    relaxedPool.on('error', () => undefined)
    relaxed = drizzlePg(relaxedPool)
    return relaxed
  }
  // The read paths (Query API, reports) run on a pool whose sessions are read-only, as the query role, with the
  // statement timeout, so a query is one round trip in a read-only implicit transaction. One such pool per timeout
  // value in use (the tenant setting rarely changes; an old pool is ended).
  let readPool: { timeoutMs: number; pool: pg.Pool; prepared: Set<string> } | undefined
  const readPoolFor = (statementTimeoutMs: number) => {
    if (readPool?.timeoutMs === statementTimeoutMs) return readPool
    if (readPool) {
      void readPool.pool.end().catch(() => undefined)
    }
    const read = new pg.Pool({
      connectionString: options.readUrl ?? url,
      max: options.max ?? 10,
      application_name: `${options.applicationName ?? 'obol'}-read`,
      connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
      options: `-c role=${QUERY_ROLE} -c default_transaction_read_only=on -c plan_cache_mode=force_custom_plan -c statement_timeout=${Math.max(1, Math.floor(statementTimeoutMs))}`,
    })
    read.on('error', () => undefined)
    readPool = { timeoutMs: statementTimeoutMs, pool: read, prepared: new Set() }
    return readPool
  }
  return {
    kind: 'postgres',
    db,
    pglite: undefined,
    url,
    get relaxed() {
      return relaxedDb()
    },
    poolStats: () => ({
      total: pool.totalCount + (readPool?.pool.totalCount ?? 0),
      idle: pool.idleCount + (readPool?.pool.idleCount ?? 0),
      waiting: pool.waitingCount + (readPool?.pool.waitingCount ?? 0),
    }),
    readOnlyQuery: async <T>(statementTimeoutMs: number, statement: TextStatement): Promise<T[]> => {
      const read = readPoolFor(statementTimeoutMs)
      let name = statement.name
      if (name !== undefined && !read.prepared.has(name)) {
        if (read.prepared.size < MAX_PREPARED_STATEMENTS) read.prepared.add(name)
        else name = undefined
      }
      const result = await read.pool.query<T & pg.QueryResultRow>({
        name,
        text: statement.text,
        values: [...statement.values],
      })
      return result.rows
    },
    close: async () => {
      if (closed) return
      closed = true
      await Promise.all([pool.end(), readPool?.pool.end(), relaxedPool?.end()])
    },
  }
}

export function pgliteDataDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata')
}

/** Runs a statement and returns its rows, whatever the driver. */
export async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query)
  return (result as { rows: T[] }).rows
}

export async function one<T>(db: Db, query: SQL): Promise<T | undefined> {
  const found: T[] = await rows<T>(db, query)
  return found[0]
}

export async function ping(db: Db): Promise<void> {
  await db.execute(sql`select 1`)
}
