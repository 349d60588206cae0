import fs from 'node:fs'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parentPort, workerData } from 'node:worker_threads'
import pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'

/**
 * One Expert export on a PostgreSQL server, in a worker thread of its own: `COPY (...) TO STDOUT` streamed from its
 * own connection into the file. The thread's small young generation (see `EXPORT_WORKER_YOUNG_MB`) has its garbage — a buffer
 * per network read — collected as it goes, so the process's memory stays flat whatever the row count, and the
 * main thread's event loop keeps serving requests.
 */
export interface CsvExportTask {
  readonly connectionString: string
  readonly applicationName: string
  /** Session settings (`-c role=… -c default_transaction_read_only=on -c statement_timeout=…`). */
  readonly options: string
  readonly copy: string
  readonly file: string
  /** The most bytes the file may hold: past them the statement is cancelled and the answer is `tooLarge`. */
  readonly maxBytes: number
  readonly connectionTimeoutMillis: number
}

export type CsvExportReply =
  | { rows: number }
  | { tooLarge: true }
  | { error: { message: string; code: string | undefined } }
  /** Sent every PROGRESS_MS while rows arrive: lines written after the header (a value with a line break counts more). */
  | { progress: number }

const PROGRESS_MS = 250
const LF = 0x0a

/** Cancels the export's statement from a connection of the application's role, which owns the export's backend. */
async function cancelBackend(task: CsvExportTask, pid: number): Promise<void> {
  const client = new pg.Client({
    connectionString: task.connectionString,
    connectionTimeoutMillis: task.connectionTimeoutMillis,
  })
  client.on('error', () => undefined)
  try {
    await client.connect()
    await client.query('select pg_cancel_backend($1)', [pid])
  } finally {
    await client.end().catch(() => undefined)
  }
}

async function run(task: CsvExportTask): Promise<CsvExportReply> {
  const client = new pg.Client({
    connectionString: task.connectionString,
    application_name: task.applicationName,
    connectionTimeoutMillis: task.connectionTimeoutMillis,
    options: task.options,
  })
  client.on('error', () => undefined)
  let bytes = 0
  let tooLarge = false
  let lines = 0
  let reportedAt = Date.now()
  // Past the cap nothing more is written, and the statement is cancelled: the COPY then ends with its error, read
  // to the end so the connection closes cleanly.
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (tooLarge) return done()
      bytes += chunk.length
      for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) lines++
      if (Date.now() - reportedAt >= PROGRESS_MS) {
        reportedAt = Date.now()
        parentPort?.postMessage({ progress: Math.max(0, lines - 1) } satisfies CsvExportReply)
      }
      if (bytes <= task.maxBytes) return done(null, chunk)
      tooLarge = true
      cancelBackend(task, (client as unknown as { processID: number }).processID).catch(() => undefined)
      done()
    },
  })
  try {
    await client.connect()
    const stream = client.query(copyTo(task.copy))
    await pipeline(stream, capped, fs.createWriteStream(task.file))
    return tooLarge ? { tooLarge: true } : { rows: stream.rowCount }
  } catch (error) {
    if (tooLarge) return { tooLarge: true }
    const code = (error as { code?: unknown }).code
    return {
      error: {
        message: error instanceof Error ? error.message : String(error),
        code: typeof code === 'string' ? code : undefined,
      },
    }
  } finally {
    await client.end().catch(() => undefined)
  }
}

parentPort?.postMessage(await run(workerData as CsvExportTask))
