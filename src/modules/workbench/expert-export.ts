import type { Reader } from '../../kernel/db/database.ts'
import type { CsvExport } from './csv-export.ts'

export { ExportTooLargeError, type CsvExport } from './csv-export.ts'

/**
 * Where Expert runs write their CSV: one implementation per database driver (`expert-export.pglite.ts`,
 * `expert-export.postgres.ts`; `expertExportOf` picks one).
 */
export interface ExpertExport {
  /**
   * Writes a statement's result as PostgreSQL's CSV (`COPY (...) TO STDOUT WITH (FORMAT csv, HEADER)`) into `file`,
   * read-only and as the Expert role (billing data only); answers the number of data rows. On a server: on its own
   * connection, streamed by a worker thread, so memory stays flat, with `statement_timeout`; an error of the statement
   * (timeout, cancel: SQLSTATE 57014) rejects with its `code`. With a `reader` and replicas, on a replica chosen by
   * the rules of `readOnlyQuery` (replayed past the reader's last write, within the lag bound), the primary when none
   * is, or when the chosen one cannot be reached or cancels the export for a conflict with its recovery (the file is
   * then written again from the primary). On PGlite: through a cursor, in batches between which other requests run
   * (`exportThroughCursor`). Either way a file that would pass `maxBytes` rejects with ExportTooLargeError.
   */
  exportCsv(statement: CsvExport, file: string, reader?: Reader): Promise<number>
  /**
   * Cancels the running export tagged `tag` (pg_cancel_backend) on the primary or a replica, from any instance; false
   * when none runs. PGlite: always false (a run of this process stops at its next batch through its `signal`).
   */
  cancel(tag: string): Promise<boolean>
  /** How many exports this process runs at once: one on PGlite (one connection), several on a server. */
  readonly capacity: number
}
