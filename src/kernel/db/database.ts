import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { sql, type SQL } from 'drizzle-orm'
import pg from 'pg'

export type Db = PgDatabase<PgQueryResultHKT>
/** A drizzle handle usable inside or outside a transaction. */
export type Tx = Db

export interface PoolStats {
  total: number
  idle: number
  waiting: number
}

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
   * Server only: a handle on a pool whose sessions are read-only with the given statement timeout, so each query of
   * the read paths (Query API, reports) is one round trip in a read-only implicit transaction. Undefined on PGlite.
   */
  readOnly(statementTimeoutMs: number): Db | undefined
  close(): Promise<void>
}

export async function openPglite(options: { dataDir?: string; loadDataDir?: Blob } = {}): Promise<Database> {
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true })
  const pglite = await PGlite.create({
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
    readOnly: () => undefined,
    close: () => pglite.close(),
  }
}

export function openPostgres(
  url: string,
  options: { max?: number; applicationName?: string; readUrl?: string } = {},
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'obol',
  })
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined)
  const db = drizzlePg(pool) as unknown as Db
  let closed = false
  // One read-only pool per timeout value in use (the tenant setting rarely changes; an old pool is ended).
  let readPool: { timeoutMs: number; pool: pg.Pool; db: Db } | undefined
  const retired: pg.Pool[] = []
  return {
    kind: 'postgres',
    db,
    pglite: undefined,
    url,
    poolStats: () => ({
      total: pool.totalCount + (readPool?.pool.totalCount ?? 0),
      idle: pool.idleCount + (readPool?.pool.idleCount ?? 0),
      waiting: pool.waitingCount + (readPool?.pool.waitingCount ?? 0),
    }),
    readOnly: (statementTimeoutMs) => {
      if (readPool?.timeoutMs === statementTimeoutMs) return readPool.db
      if (readPool) {
        retired.push(readPool.pool)
        void readPool.pool.end().catch(() => undefined)
      }
      const read = new pg.Pool({
        connectionString: options.readUrl ?? url,
        max: options.max ?? 10,
        application_name: `${options.applicationName ?? 'obol'}-read`,
        options: `-c default_transaction_read_only=on -c statement_timeout=${Math.max(1, Math.floor(statementTimeoutMs))}`,
      })
      read.on('error', () => undefined)
      readPool = { timeoutMs: statementTimeoutMs, pool: read, db: drizzlePg(read) as unknown as Db }
      return readPool.db
    },
    close: async () => {
      if (closed) return
      closed = true
      await Promise.all([pool.end(), readPool?.pool.end()])
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
