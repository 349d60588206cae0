import { Worker } from 'node:worker_threads'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { rows, type Db, type ReadServers, type Server } from '../../kernel/db/database.ts'
import { EXPERT_ROLE } from '../../kernel/db/query-role.ts'
import { ExportTooLargeError, writePlan, type CsvExport } from './csv-export.ts'
import type { CsvExportReply, CsvExportTask } from './csv-export.worker.ts'
import type { ExpertExport } from './expert-export.ts'

/** Expert runs one process executes at once on a server (each on its own connection). */
const SERVER_RUNNERS = 8

/**
 * The export worker's young generation, in MiB: small, so the buffers of the network reads it discards are collected
 * every few megabytes instead of piling up (docs/performance.md, Expert exports).
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

/**
 * Runs one COPY export in a worker thread (`csv-export.worker.ts`); rejects with the statement's error and code, or
 * with ExportTooLargeError when the file would pass `task.maxBytes` (the worker then cancelled the statement).
 */
function exportInWorker(task: CsvExportTask, onProgress?: (rowsSoFar: number) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(EXPORT_WORKER, {
      workerData: task,
      resourceLimits: { maxYoungGenerationSizeMb: EXPORT_WORKER_YOUNG_MB },
    })
    let settled = false
    worker.on('message', (reply: CsvExportReply) => {
      if ('progress' in reply) return onProgress?.(reply.progress)
      settled = true
      if ('rows' in reply) resolve(reply.rows)
      else if ('tooLarge' in reply) reject(new ExportTooLargeError(task.maxBytes))
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
 * One Expert export on a server (the primary or a replica): a SELECT streamed by a worker thread from a connection of
 * its own; an EXPLAIN's plan lines (EXPLAIN cannot be COPY's query) written as COPY would write one text column. The
 * session is read-only, as the Expert role, with the statement timeout, and named by the run's tag for cancelling.
 */
async function exportOn(server: Server, statement: CsvExport, file: string): Promise<number> {
  const { url, connectTimeoutMs: connectionTimeoutMillis } = server
  const settings = `-c role=${EXPERT_ROLE} -c default_transaction_read_only=on -c statement_timeout=${Math.max(1, Math.floor(statement.statementTimeoutMs))}`
  if (statement.kind === 'select') {
    return exportInWorker(
      {
        connectionString: url,
        applicationName: statement.tag,
        options: settings,
        copy: `COPY (${statement.text}) TO STDOUT WITH (FORMAT csv, HEADER)`,
        file,
        maxBytes: statement.maxBytes,
        connectionTimeoutMillis,
      },
      statement.onProgress,
    )
  }
  const client = new pg.Client({
    connectionString: url,
    application_name: statement.tag,
    connectionTimeoutMillis,
    options: settings,
  })
  client.on('error', () => undefined)
  try {
    await client.connect()
    const plan = await client.query<(string | null)[]>({ text: statement.text, rowMode: 'array' })
    await writePlan(file, statement.maxBytes, plan.rows)
    return plan.rows.length
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Cancels, on one replica, the export whose connection carries `tag`. */
async function cancelOn(replica: Server, tag: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: replica.url, connectionTimeoutMillis: replica.connectTimeoutMs })
  client.on('error', () => undefined)
  try {
    await client.connect()
    const found = await client.query<{ done: boolean }>(
      'select pg_cancel_backend(pid) as done from pg_stat_activity where application_name = $1',
      [tag],
    )
    return found.rows.some((row) => row.done)
  } finally {
    await client.end().catch(() => undefined)
  }
}

/**
 * Expert exports on a server: each on a connection of its own to the server `servers` chooses for the reader, named
 * by the run's tag; cancelled by that tag on the primary (through `db`) and on each replica.
 */
export function serverExpertExport(db: Db, servers: ReadServers): ExpertExport {
  const replicas = servers.all.slice(1)
  return {
    exportCsv: (statement, file, reader) => servers.onServerFor(reader, (server) => exportOn(server, statement, file)),
    cancel: async (tag) => {
      // The export runs on the primary or on one of the replicas: each is asked; a replica that is down has none.
      const cancelled = await rows<{ done: boolean }>(
        db,
        sql`select pg_cancel_backend(pid) as done from pg_stat_activity where application_name = ${tag}`,
      )
      const onReplicas = await Promise.all(replicas.map((replica) => cancelOn(replica, tag).catch(() => false)))
      return cancelled.some((row) => row.done) || onReplicas.some(Boolean)
    },
    capacity: SERVER_RUNNERS,
  }
}
