import { createHash } from 'node:crypto'
import type { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { sql, type SQL } from 'drizzle-orm'
import pg from 'pg'
import { QUERY_ROLE } from './query-role.ts'
import { isDatabaseUnavailable, pgErrorOf } from './database-errors.ts'
import { parseLsn, Replicas, type ReplicaStatus } from './replicas.ts'
import { createPglite, type PgliteOptions } from '../../embedded/pglite.ts'

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

/** Who reads: their own writes must be visible to them (read-your-writes on replicas). */
export interface Reader {
  /**
   * The principal's subject, as recorded by `recordWrite`; null for a reader with no writes of its own to see (a
   * scheduled Expert run): any replica within the lag bound serves it.
   */
  readonly subject: string | null
}

/** A server a module opens sessions of its own on (server only): the primary or a replica. */
export interface Server {
  readonly url: string
  /** How long to wait to connect to it: a replica's is short, the primary answering instead. */
  readonly connectTimeoutMs: number
}

/** The servers reads may go to, for a module that opens sessions of its own on them (an Expert export). */
export interface ReadServers {
  /**
   * Runs `read` on a server chosen by the rules of `readOnlyQuery`: with a `reader` and replicas, a replica replayed
   * past the reader's last write within the lag bound; the primary when none is, or when the chosen one cannot be
   * reached or cancels the read for a conflict with its recovery (SQLSTATE 40001): that replica is then marked down
   * and `read` runs again on the primary. Counted in `readStats`.
   */
  onServerFor<T>(reader: Reader | undefined, read: (server: Server) => Promise<T>): Promise<T>
  /** The primary, then each replica (down or not). */
  readonly all: readonly Server[]
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
   * Runs one statement of the query layer read-only and as the query role (SELECT on the registry's tables only):
   * on a server in the read pool, whose sessions are read-only, with the timeout and the role (a named statement is
   * prepared once per connection, up to MAX_PREPARED_STATEMENTS names, then run unnamed); on PGlite in a read-only
   * transaction that switches to the role with SET LOCAL ROLE. With a `reader` and replicas, a replica that has
   * replayed past the reader's last write answers (see Replicas); without one, the primary.
   */
  readOnlyQuery<T>(statementTimeoutMs: number, statement: TextStatement, reader?: Reader): Promise<T[]>
  /** Whether writes must be recorded for read-your-writes (replicas are configured). */
  readonly recordsWrites: boolean
  /**
   * Records that `subject` wrote: the primary's WAL position now, kept in the primary for every instance, so this
   * caller's reads go only to a replica that has replayed past it. Nothing without replicas.
   */
  recordWrite(subject: string): Promise<void>
  /** Reads served by the primary and by replicas since this handle opened. */
  readStats(): { primary: number; replica: number }
  /** Each replica's state and lag (none without replicas). */
  replicaStatus(): ReplicaStatus[]
  /** The primary and the replicas, and the choice between them (server only). */
  readonly readServers: ReadServers | undefined
  /**
   * A handle whose commits do not wait for the write-ahead log to reach disk (`synchronous_commit = off`): for
   * bookkeeping whose last fraction of a second may be lost in a database crash — the workbench audit and governor
   * counts, written around every workbench query — never for money, balances or states. PGlite: the same handle.
   */
  readonly relaxed: Db
  close(): Promise<void>
}

/**
 * The embedded database (src/embedded/pglite.ts, `createPglite`: its settings, a new directory's cluster made by a
 * child process, its file bundle read from disk) behind the same interface as a server.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<Database> {
  const { pglite, bundle } = await createPglite(options)
  const db = drizzlePglite(pglite) as unknown as Db
  let reads = 0
  return {
    kind: 'pglite',
    db,
    pglite,
    url: undefined,
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    relaxed: db,
    readOnlyQuery: async <T>(_statementTimeoutMs: number, statement: TextStatement) => {
      const found = await pglite.transaction(async (tx) => {
        await tx.exec(`set transaction read only; set local role ${QUERY_ROLE}`)
        return (await tx.query<T>(statement.text, [...statement.values])).rows
      })
      reads++
      return found
    },
    recordsWrites: false,
    recordWrite: async () => undefined,
    readStats: () => ({ primary: reads, replica: 0 }),
    replicaStatus: () => [],
    readServers: undefined,
    close: async () => {
      try {
        await pglite.close()
      } finally {
        bundle?.close()
      }
    },
  }
}

/**
 * How long a request waits for a pooled connection (a new one, or a busy pool's next free one) before it fails with
 * 503 DATABASE_UNAVAILABLE, instead of hanging while a server is unreachable.
 */
const CONNECTION_TIMEOUT_MS = 10_000

/** How long a read waits to connect to a replica before the primary answers it instead. */
const REPLICA_CONNECTION_TIMEOUT_MS = 2_000

export interface PostgresOptions {
  max?: number
  applicationName?: string
  /** Streaming replicas that serve the query layer's reads (DATABASE_READ_URL). */
  readUrls?: readonly string[]
  /** A replica staler than this is not read (DATABASE_READ_MAX_LAG_MS, default 5000). */
  readMaxLagMs?: number
  /** How often the replicas' positions are checked (default 1000). */
  replicaCheckIntervalMs?: number
}

export function openPostgres(url: string, options: PostgresOptions = {}): Database {
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
  const primaryReads = readPools(url, options, CONNECTION_TIMEOUT_MS)
  const replicaUrls = options.readUrls ?? []
  const replicas =
    replicaUrls.length === 0
      ? undefined
      : new Replicas(pool, {
          urls: replicaUrls,
          maxLagMs: options.readMaxLagMs ?? 5000,
          checkIntervalMs: options.replicaCheckIntervalMs ?? 1000,
          connectTimeoutMs: REPLICA_CONNECTION_TIMEOUT_MS,
          applicationName: options.applicationName ?? 'obol',
        })
  replicas?.start()
  const replicaReads = new Map(
    replicaUrls.map((replicaUrl) => [replicaUrl, readPools(replicaUrl, options, REPLICA_CONNECTION_TIMEOUT_MS)]),
  )
  const reads = { primary: 0, replica: 0 }
  /** The caller's last write position, from the primary (undefined: no write recorded). */
  const positionOf = async (subject: string | null): Promise<bigint | undefined> => {
    if (subject === null) return undefined
    const found = await pool.query<{ lsn: string }>(
      'select lsn::text as lsn from obol_read_position where subject = $1',
      [subject],
    )
    return found.rows[0] ? parseLsn(found.rows[0].lsn) : undefined
  }
  /**
   * Runs a read on a replica when one may serve `reader` (replayed past their last write, within the lag bound; their
   * position is looked up only when a replica could serve at all), else on the primary. A replica that went away, or
   * cancelled the read for a conflict with its recovery (SQLSTATE 40001), is marked down and the primary answers.
   */
  const primary: Server = { url, connectTimeoutMs: CONNECTION_TIMEOUT_MS }
  const replicaServers = new Map(
    replicaUrls.map((replicaUrl) => [replicaUrl, { url: replicaUrl, connectTimeoutMs: REPLICA_CONNECTION_TIMEOUT_MS }]),
  )
  const readOnReplicaOrPrimary = async <T>(reader: Reader | undefined, read: (server: Server) => Promise<T>) => {
    const replica = reader && replicas?.anyUp() ? replicas.choose(await positionOf(reader.subject)) : undefined
    if (replica) {
      try {
        const found = await read(replicaServers.get(replica.url)!)
        reads.replica++
        return found
      } catch (error) {
        if (!isDatabaseUnavailable(error) && pgErrorOf(error)?.code !== '40001') throw error
        replicas!.markDown(replica.url, error)
      }
    }
    const found = await read(primary)
    reads.primary++
    return found
  }
  return {
    kind: 'postgres',
    db,
    pglite: undefined,
    url,
    get relaxed() {
      return relaxedDb()
    },
    poolStats: () => {
      const read = primaryReads.pool()
      return {
        total: pool.totalCount + (read?.totalCount ?? 0),
        idle: pool.idleCount + (read?.idleCount ?? 0),
        waiting: pool.waitingCount + (read?.waitingCount ?? 0),
      }
    },
    readOnlyQuery: <T>(statementTimeoutMs: number, statement: TextStatement, reader?: Reader): Promise<T[]> =>
      readOnReplicaOrPrimary(reader, (server) =>
        (server === primary ? primaryReads : replicaReads.get(server.url)!).query<T>(statementTimeoutMs, statement),
      ),
    recordsWrites: replicas !== undefined,
    recordWrite: async (subject: string) => {
      if (!replicas) return
      await relaxedDb().execute(
        sql`insert into obol_read_position (subject, lsn) values (${subject}, pg_current_wal_insert_lsn())
            on conflict (subject) do update set lsn = greatest(obol_read_position.lsn, excluded.lsn), written_at = now()`,
      )
    },
    readStats: () => ({ ...reads }),
    readServers: { onServerFor: readOnReplicaOrPrimary, all: [primary, ...replicaServers.values()] },
    replicaStatus: () => replicas?.status() ?? [],
    close: async () => {
      if (closed) return
      closed = true
      await replicas?.close()
      await Promise.all([
        pool.end(),
        primaryReads.end(),
        ...[...replicaReads.values()].map((r) => r.end()),
        relaxedPool?.end(),
      ])
    },
  }
}

/**
 * The read pools of one server (the primary or a replica): sessions read-only, as the query role, with the statement
 * timeout, so a query is one round trip in a read-only implicit transaction. One pool per timeout value in use (the
 * tenant setting rarely changes; an old pool is ended). A named statement is prepared once per connection, up to
 * MAX_PREPARED_STATEMENTS names, then run unnamed.
 */
function readPools(url: string, options: PostgresOptions, connectionTimeoutMillis: number) {
  let current: { timeoutMs: number; pool: pg.Pool; prepared: Set<string> } | undefined
  const poolFor = (statementTimeoutMs: number) => {
    if (current?.timeoutMs === statementTimeoutMs) return current
    if (current) void current.pool.end().catch(() => undefined)
    const read = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      application_name: `${options.applicationName ?? 'obol'}-read`,
      connectionTimeoutMillis,
      options: `-c role=${QUERY_ROLE} -c default_transaction_read_only=on -c plan_cache_mode=force_custom_plan -c statement_timeout=${Math.max(1, Math.floor(statementTimeoutMs))}`,
    })
    read.on('error', () => undefined)
    current = { timeoutMs: statementTimeoutMs, pool: read, prepared: new Set() }
    return current
  }
  return {
    pool: () => current?.pool,
    async query<T>(statementTimeoutMs: number, statement: TextStatement): Promise<T[]> {
      const read = poolFor(statementTimeoutMs)
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
    end: async () => {
      await current?.pool.end()
    },
  }
}

/** Runs a statement and returns its rows, whatever the driver. */
export async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query)
  return (result as { rows: T[] }).rows
}

const dialect = new PgDialect()
/** Statement names by text: hashed once per text. */
const statementNames = new Map<string, string>()

/**
 * Runs a statement of fixed shape that a hot path sends on every request (the same text whatever its parameter
 * values) as a named prepared statement on a server: each connection parses and plans it once, then only binds and
 * executes it, and PostgreSQL may keep one generic plan. A statement that joins a few lookups costs several times
 * more to plan than to run (docs/performance.md, the order parties' lookup). The name is a hash of the text, so a
 * name always carries the same text (node-postgres refuses a name reused for another text), and a caller sending
 * many shapes would prepare as many: only for fixed-shape statements. On PGlite, as `rows` (it prepares nothing by name).
 */
export async function preparedRows<T>(db: Db, query: SQL): Promise<T[]> {
  const statement = dialect.sqlToQuery(query)
  let name = statementNames.get(statement.sql)
  if (name === undefined) {
    name = `obol_${createHash('sha256').update(statement.sql).digest('hex').slice(0, 24)}`
    if (statementNames.size < 1000) statementNames.set(statement.sql, name)
  }
  const result: unknown = await db._.session.prepareQuery(statement, undefined, name, false).execute()
  return (result as { rows: T[] }).rows
}

export async function one<T>(db: Db, query: SQL): Promise<T | undefined> {
  const found: T[] = await rows<T>(db, query)
  return found[0]
}

export async function ping(db: Db): Promise<void> {
  await db.execute(sql`select 1`)
}
