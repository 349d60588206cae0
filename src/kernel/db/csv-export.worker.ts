import fs from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import pg from 'pg'
import { CopyToFile } from './copy-out.ts'

/**
 * One Expert export on a PostgreSQL server, in a worker thread of its own: `COPY (...) TO STDOUT` streamed from its
 * own connection into the file. The thread's small young generation (see `exportCsv`) has its garbage — a buffer
 * per network read — collected as it goes, so the process's memory stays flat whatever the row count, and the
 * main thread's event loop keeps serving requests. The rows go from the socket into the file through two buffers
 * (`CopyToFile`): one is written while the other fills.
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
    const file = await fs.promises.open(task.file, 'w')
    try {
      const copy = client.query(new CopyToFile(task.copy, file))
      return { rows: await copy.done }
    } finally {
      await file.close()
    }
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
