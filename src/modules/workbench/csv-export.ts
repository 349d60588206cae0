import fs from 'node:fs'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { PGlite } from '@electric-sql/pglite'
import { EXPERT_ROLE } from '../../kernel/db/query-role.ts'

/** An Expert export: one vetted statement written as CSV (header line first) as the Expert role, read-only. */
export interface CsvExport {
  /** A SELECT or WITH statement (COPY's query), or an EXPLAIN (its plan lines written as one CSV column). */
  readonly text: string
  readonly kind: 'select' | 'explain'
  readonly statementTimeoutMs: number
  /** Names the run's connection (application_name) so any instance can cancel it (`ExpertExport.cancel`). */
  readonly tag: string
  /** The most bytes the file may hold: past them the export stops, rejects with ExportTooLargeError. */
  readonly maxBytes: number
  /** PGlite: looked at between batches; once aborted the export rejects as a cancelled statement (57014). */
  readonly signal?: AbortSignal | undefined
  /** Told the data rows written so far after each batch (PGlite) or every so often (a server's worker). */
  readonly onProgress?: ((rowsSoFar: number) => void) | undefined
}

/** An export stopped because its file would pass `maxBytes`; what it wrote is left for the caller to delete. */
export class ExportTooLargeError extends Error {
  readonly maxBytes: number
  constructor(maxBytes: number) {
    super(`the export passed ${maxBytes} bytes`)
    this.name = 'ExportTooLargeError'
    this.maxBytes = maxBytes
  }
}

/** PostgreSQL's SQLSTATE of a cancelled statement: an export cancelled between batches rejects with it too. */
const QUERY_CANCELED = '57014'
/** PostgreSQL's SQLSTATE of a temporary file past `temp_file_limit`. */
const CONFIGURATION_LIMIT_EXCEEDED = '53400'

/**
 * How much larger than its CSV a result may be in PostgreSQL's temporary file (each row stored with a header of
 * about 24 bytes, values in their binary form): the embedded export's temporary file may reach this many times the
 * byte cap before the run is refused as too large.
 */
const TEMPORARY_FILE_FACTOR = 16

const COMMA = 0x2c
const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d
const BACKSLASH = 0x5c
const DOT = 0x2e

/**
 * Whether COPY ... CSV quotes a value (`CopyAttributeOutCSV`): the empty string (NULL is written as nothing), a value
 * holding a comma, a quote, CR or LF, and `\.` alone on a line (a one-column row), which would read as the end of
 * data. Bytes of UTF-8: none of these ASCII bytes occurs inside a multibyte character.
 */
function needsQuotes(value: Uint8Array, singleColumn: boolean): boolean {
  if (value.length === 0) return true
  if (singleColumn && value.length === 2 && value[0] === BACKSLASH && value[1] === DOT) return true
  for (const byte of value) if (byte === COMMA || byte === QUOTE || byte === LF || byte === CR) return true
  return false
}

/**
 * CSV lines exactly as `COPY ... TO STDOUT WITH (FORMAT csv, HEADER)` writes them, from the values' text (the type
 * output functions COPY calls too): comma-separated, quoted when needed with quotes doubled, NULL as nothing, each
 * line ended by LF.
 */
export function csvLines(rows: readonly (readonly (Uint8Array | null)[])[]): Buffer {
  let size = 0
  for (const row of rows) {
    size += row.length
    for (const value of row) if (value) size += 2 * value.length + 2
  }
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (const row of rows) {
    row.forEach((value, i) => {
      if (i > 0) out[at++] = COMMA
      if (value === null) return
      if (!needsQuotes(value, row.length === 1)) {
        out.set(value, at)
        at += value.length
        return
      }
      out[at++] = QUOTE
      for (const byte of value) {
        if (byte === QUOTE) out[at++] = QUOTE
        out[at++] = byte
      }
      out[at++] = QUOTE
    })
    out[at++] = LF
  }
  return out.subarray(0, at)
}

/** A text value as the bytes `csvLines` takes. */
export const textValue = (value: string | null): Uint8Array | null => (value === null ? null : Buffer.from(value))

/** A protocol simple-query message ('Q'): PGlite's `query` reads neither COPY output nor rows as their text. */
export function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, 'utf8')
  const message = Buffer.alloc(5 + body.length)
  message.write('Q', 0)
  message.writeInt32BE(4 + body.length, 1)
  body.copy(message, 5)
  return new Uint8Array(message)
}

/**
 * Runs `work` holding both of PGlite's locks. `runExclusive` takes only the statement lock, so a protocol message sent
 * through it could run between two statements of another caller's transaction (inside it, as its role); the
 * transaction lock keeps it out of every open transaction, as PGlite's own describeQuery does.
 */
export function exclusively<T>(pglite: PGlite, work: () => Promise<T>): Promise<T> {
  return pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(work))
}

/** The rows of one FETCH, read from its raw protocol answer: column names, the values' text, or the error. */
interface Fetched {
  columns: Uint8Array[] | undefined
  rows: (Uint8Array | null)[][]
  error: { code: string; message: string } | undefined
}

/** Reads a simple query's backend messages (RowDescription, DataRow, ErrorResponse; the others are skipped). */
function backendMessages(raw: Buffer): Fetched {
  const fetched: Fetched = { columns: undefined, rows: [], error: undefined }
  let at = 0
  while (at + 5 <= raw.length) {
    const type = raw[at]!
    const end = at + 1 + raw.readInt32BE(at + 1)
    let p = at + 5
    if (type === 0x54 /* T */) {
      const count = raw.readInt16BE(p)
      p += 2
      fetched.columns = []
      for (let i = 0; i < count; i++) {
        const nul = raw.indexOf(0, p)
        fetched.columns.push(raw.subarray(p, nul))
        p = nul + 1 + 18 // table oid, column number, type oid, type size, type modifier, format code
      }
    } else if (type === 0x44 /* D */) {
      const count = raw.readInt16BE(p)
      p += 2
      const row: (Uint8Array | null)[] = []
      for (let i = 0; i < count; i++) {
        const length = raw.readInt32BE(p)
        p += 4
        if (length < 0) row.push(null)
        else {
          row.push(raw.subarray(p, p + length))
          p += length
        }
      }
      fetched.rows.push(row)
    } else if (type === 0x45 /* E */) {
      const fields = new Map<string, string>()
      while (p < end && raw[p] !== 0) {
        const nul = raw.indexOf(0, p + 1)
        fields.set(String.fromCharCode(raw[p]!), raw.toString('utf8', p + 1, nul))
        p = nul + 1
      }
      fetched.error = { code: fields.get('C') ?? 'XX000', message: fields.get('M') ?? 'the statement failed' }
    }
    at = end
  }
  return fetched
}

async function fetchRows(pglite: PGlite, cursor: string, count: number): Promise<Fetched> {
  const chunks: Uint8Array[] = []
  await exclusively(pglite, () =>
    pglite.execProtocolRawStream(simpleQuery(`FETCH ${count} FROM ${cursor}`), {
      syncToFs: false,
      onRawData: (data) => chunks.push(data.slice()),
    }),
  )
  const fetched = backendMessages(Buffer.concat(chunks))
  if (fetched.error) throw Object.assign(new Error(fetched.error.message), { code: fetched.error.code })
  return fetched
}

/** A batch aims at this many bytes of CSV: rows are fetched 1, 2, 4… at a time up to it (1 MB rows: one by one). */
const BATCH_TARGET_BYTES = 1 << 20
/** The most rows one FETCH asks for: about 10 ms of the embedded database for narrow rows. */
const MAX_BATCH_ROWS = 10_000

/** Writes chunks to `file`, failing with ExportTooLargeError once they would pass `maxBytes` bytes. */
class CappedFile {
  private bytes = 0
  private readonly handle: fs.promises.FileHandle
  private readonly maxBytes: number

  private constructor(handle: fs.promises.FileHandle, maxBytes: number) {
    this.handle = handle
    this.maxBytes = maxBytes
  }

  static async open(file: string, maxBytes: number): Promise<CappedFile> {
    return new CappedFile(await fs.promises.open(file, 'w'), maxBytes)
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.bytes += chunk.length
    if (this.bytes > this.maxBytes) throw new ExportTooLargeError(this.maxBytes)
    await this.handle.write(chunk)
  }

  close(): Promise<void> {
    return this.handle.close()
  }
}

/** Writes whole lines (EXPLAIN plans), under the byte cap. */
export async function writeLines(file: string, maxBytes: number, lines: Iterable<Uint8Array>): Promise<void> {
  const out = await CappedFile.open(file, maxBytes)
  try {
    for (const line of lines) await out.write(line)
  } finally {
    await out.close()
  }
}

/**
 * An Expert export on the embedded database, which has one connection: an open transaction would hold it, and every
 * other request with it, until the export ended. So the statement is declared as a cursor WITH HOLD in a read-only
 * transaction as the Expert role; PostgreSQL computes its rows when that transaction commits (uninterruptible, as
 * any PGlite statement: the row cap bounds it) and keeps them in a temporary file, which may not pass
 * TEMPORARY_FILE_FACTOR times the byte cap (ExportTooLargeError). The rows are then fetched in
 * batches, each batch's CSV written to the file under the byte cap, yielding to the event loop between batches, so
 * other requests' statements run between them and a cancel takes effect at the next batch. Answers the data rows.
 */
export async function exportThroughCursor(pglite: PGlite, statement: CsvExport, file: string): Promise<number> {
  const cursor = `"${statement.tag.replaceAll('"', '')}"`
  // The temporary file is bounded with the byte cap (set before the role: only a superuser sets temp_file_limit).
  const temporaryKb = Math.min(2 ** 31 - 1, Math.ceil((statement.maxBytes * TEMPORARY_FILE_FACTOR) / 1024))
  try {
    await exclusively(pglite, () =>
      pglite.execProtocolStream(
        simpleQuery(
          `SET TRANSACTION READ ONLY; SET LOCAL temp_file_limit = '${temporaryKb}kB'; SET LOCAL ROLE ${EXPERT_ROLE}; ` +
            `DECLARE ${cursor} NO SCROLL CURSOR WITH HOLD FOR ${statement.text}`,
        ),
        { syncToFs: false },
      ),
    )
  } catch (error) {
    if ((error as { code?: unknown }).code === CONFIGURATION_LIMIT_EXCEEDED)
      throw new ExportTooLargeError(statement.maxBytes)
    throw error
  }
  let out: CappedFile | undefined
  try {
    out = await CappedFile.open(file, statement.maxBytes)
    let count = 0
    let batch = 1
    for (let header = true; ; header = false) {
      if (statement.signal?.aborted)
        throw Object.assign(new Error('canceling statement due to user request'), { code: QUERY_CANCELED })
      const fetched = await fetchRows(pglite, cursor, batch)
      const csv = csvLines(header ? [fetched.columns ?? [], ...fetched.rows] : fetched.rows)
      await out.write(csv)
      count += fetched.rows.length
      if (fetched.rows.length < batch) return count
      statement.onProgress?.(count)
      const perRow = csv.length / fetched.rows.length
      batch = Math.max(1, Math.min(MAX_BATCH_ROWS, batch * 2, Math.floor(BATCH_TARGET_BYTES / perRow)))
      await nextTurn()
    }
  } finally {
    await out?.close()
    await exclusively(pglite, () => pglite.execProtocolStream(simpleQuery(`CLOSE ${cursor}`))).catch(() => undefined)
  }
}

/** An EXPLAIN's plan lines as COPY would write one text column named QUERY PLAN. */
export function writePlan(
  file: string,
  maxBytes: number,
  plan: readonly (readonly (string | null)[])[],
): Promise<void> {
  return writeLines(file, maxBytes, [csvLines([[textValue('QUERY PLAN')], ...plan.map((row) => row.map(textValue))])])
}
