import fs from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { parentPort, workerData } from 'node:worker_threads'
import pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'

/**
 * One Expert export on a PostgreSQL server, in a worker thread of its own: `COPY (...) TO STDOUT` streamed from its
 * own connection into the file. The thread's small young generation (see `exportCsv`) has its garbage — a buffer
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
  readonly connectionTimeoutMillis: number
}

export type CsvExportReply = { rows: number } | { error: { message: string; code: string | undefined } }

async function run(task: CsvExportTask): Promise<CsvExportReply> {
  const client = new pg.Client({
    connectionString: task.connectionString,
    application_name: task.applicationName,
    connectionTimeoutMillis: task.connectionTimeoutMillis,
    options: task.options,
  })
  client.on('error', () => undefined)
  try {
    await client.connect()
    const stream = client.query(copyTo(task.copy))
    await pipeline(stream, fs.createWriteStream(task.file))
    return { rows: stream.rowCount }
  } catch (error) {
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
