import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { sql, type SQL } from 'drizzle-orm'
import { Worker } from 'node:worker_threads'
import pg from 'pg'
import type { CsvExportReply, CsvExportTask } from './csv-export.worker.ts'
import { QUERY_ROLE } from './query-role.ts'

export type Db = PgDatabase<PgQueryResultHKT>
/** A drizzle handle usable inside or outside a transaction. */
export type Tx = Db

/** An Expert export: one vetted statement written as CSV (header line first) as the query role, read-only. */
export interface CsvExport {
  /** A SELECT or WITH statement (COPY's query), or an EXPLAIN (its plan lines written as one CSV column). */
  readonly text: string
  readonly kind: 'select' | 'explain'
  readonly statementTimeoutMs: number
  /** Names the run's connection (application_name) so any instance can cancel it with `cancelCsvExport`. */
  readonly tag: string
}

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
   * Writes a statement's result as PostgreSQL's CSV (`COPY (...) TO STDOUT WITH (FORMAT csv, HEADER)`) into `file`,
   * read-only and as the query role; answers the number of data rows. On a server: on its own connection (to the
   * read database when configured), streamed by a worker thread, so memory stays flat, with `statement_timeout`; an
   * error of the statement (timeout, cancel: SQLSTATE 57014) rejects with its `code`. On PGlite: the whole output
   * at once, not interruptible.
   */
  exportCsv(statement: CsvExport, file: string): Promise<number>
  /** Cancels the running export tagged `tag` (pg_cancel_backend), from any instance; false when none runs. */
  cancelCsvExport(tag: string): Promise<boolean>
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
    exportCsv: async (statement, file) => {
      // A simple-query message of three statements runs as one implicit transaction: read-only, as the query role,
      // rolled back as a whole on error. COPY ... TO STDOUT, as COPY to a file needs pg_write_server_files.
      const body =
        statement.kind === 'explain' ? statement.text : `COPY (${statement.text}) TO STDOUT WITH (FORMAT csv, HEADER)`
      const text = `SET TRANSACTION READ ONLY; SET LOCAL ROLE ${QUERY_ROLE}; ${body}`
      const message = simpleQuery(text)
      const messages = await pglite.runExclusive(() => pglite.execProtocolStream(message))
      let count = 0
      if (statement.kind === 'explain') {
        await writeAll(file, [
          'QUERY PLAN\n',
          ...messages.flatMap((m) =>
            m.name === 'dataRow' ? [csvLine((m as unknown as { fields: (string | null)[] }).fields)] : [],
          ),
        ])
        count = messages.filter((m) => m.name === 'dataRow').length
      } else {
        const chunks: Uint8Array[] = []
        for (const m of messages) {
          if (m.name === 'copyData') chunks.push((m as unknown as { chunk: Uint8Array }).chunk)
          if (m.name === 'commandComplete') {
            const words = (m as unknown as { text: string }).text.split(' ')
            if (words[0] === 'COPY') count = Number(words[1])
          }
        }
        await writeAll(file, chunks)
      }
      return count
    },
    // PGlite runs one statement at a time in this process: nothing to interrupt.
    cancelCsvExport: async () => false,
    close: () => pglite.close(),
  }
}

/** A protocol simple-query message ('Q'): PGlite's `query` cannot read COPY ... TO STDOUT output. */
function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, 'utf8')
  const message = Buffer.alloc(5 + body.length)
  message.write('Q', 0)
  message.writeInt32BE(4 + body.length, 1)
  body.copy(message, 5)
  return new Uint8Array(message)
}

/** One CSV line as PostgreSQL's COPY writes it: quoted when needed, NULL as nothing, an empty string as "". */
export function csvLine(values: readonly (string | null)[]): string {
  return `${values
    .map((value) =>
      value === null
        ? ''
        : value === '' || /[",\r\n]/.test(value) || value === '\\.'
          ? `"${value.replaceAll('"', '""')}"`
          : value,
    )
    .join(',')}\n`
}

async function writeAll(file: string, chunks: Iterable<string | Uint8Array>): Promise<void> {
  const handle = await fs.promises.open(file, 'w')
  try {
    for (const chunk of chunks) await handle.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  } finally {
    await handle.close()
  }
}

/**
 * The export worker's young generation, in MiB: small, so the buffers of the network reads it discards are collected
 * every few megabytes instead of piling up (measured: flat at a few MiB instead of tens to hundreds).
 */
const EXPORT_WORKER_YOUNG_MB = 2

/**
 * The export worker's file, beside this module: the TypeScript source when Obol runs from src/, its build when it runs
 * from dist/cli.js (bin/build.js builds dist/csv-export.worker.js beside it).
 */
const EXPORT_WORKER = new URL(
  import.meta.url.endsWith('.ts') ? './csv-export.worker.ts' : './csv-export.worker.js',
  import.meta.url,
)

/** Runs one COPY export in a worker thread (`csv-export.worker.ts`); rejects with the statement's error and code. */
function exportInWorker(task: CsvExportTask): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(EXPORT_WORKER, {
      workerData: task,
      resourceLimits: { maxYoungGenerationSizeMb: EXPORT_WORKER_YOUNG_MB },
    })
    let settled = false
    worker.once('message', (reply: CsvExportReply) => {
      settled = true
      if ('rows' in reply) resolve(reply.rows)
      else reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }))
    })
    worker.once('error', (error: Error) => {
      if (!settled) reject(error)
      settled = true
    })
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the export worker stopped (exit code ${code})`))
      settled = true
    })
  })
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
    exportCsv: async (statement, file) => {
      const settings = `-c role=${QUERY_ROLE} -c default_transaction_read_only=on -c statement_timeout=${Math.max(1, Math.floor(statement.statementTimeoutMs))}`
      if (statement.kind === 'select') {
        return exportInWorker({
          connectionString: options.readUrl ?? url,
          applicationName: statement.tag,
          options: settings,
          copy: `COPY (${statement.text}) TO STDOUT WITH (FORMAT csv, HEADER)`,
          file,
          connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
        })
      }
      // EXPLAIN cannot be COPY's query: its plan lines (one text column) are written as COPY would write them.
      const client = new pg.Client({
        connectionString: options.readUrl ?? url,
        application_name: statement.tag,
        connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
        options: settings,
      })
      client.on('error', () => undefined)
      try {
        await client.connect()
        const plan = await client.query<(string | null)[]>({ text: statement.text, rowMode: 'array' })
        await writeAll(file, ['QUERY PLAN\n', ...plan.rows.map((row) => csvLine(row))])
        return plan.rows.length
      } finally {
        await client.end().catch(() => undefined)
      }
    },
    cancelCsvExport: async (tag) => {
      const cancelled = await rows<{ done: boolean }>(
        db,
        sql`select pg_cancel_backend(pid) as done from pg_stat_activity where application_name = ${tag}`,
      )
      return cancelled.some((row) => row.done)
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
