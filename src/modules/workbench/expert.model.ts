import path from 'node:path'
import type { ExpertStatement } from '../query/index.ts'

/**
 * The statement an Expert text runs as: the row limit outermost, around the whole text, so nothing inside it (a
 * larger LIMIT, FETCH ... WITH TIES, OFFSET, UNION, nested limits) returns more rows. EXPLAIN returns a plan, not
 * rows: left as it is.
 */
export function expertStatement(text: string, parsed: ExpertStatement, limit: number): string {
  const trimmed = text.trim()
  if (parsed.kind === 'explain') return trimmed
  return `SELECT * FROM (\n${trimmed}\n) AS expert_result LIMIT ${limit}`
}

/** The job instance of a saved query's schedule. */
export const scheduleJobCode = (queryCode: string) => `ExpertQuery:${queryCode}`

/** A path segment from a user name: letters, digits and `._@-` kept, anything else (`/` included) as `_`. */
export function safeSegment(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._@-]/g, '_')
  return safe === '' || /^\.+$/.test(safe) ? '_' : safe
}

/** The calendar date of an instant in a time zone, as yyyy-MM-dd. */
export function dateIn(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    instant,
  )
}

/**
 * `exports/queryStudio/<user>/<yyyy-MM-dd>/expert-<id>.csv`, the date of submission in the tenant zone: the file's
 * place under the export root, which is what a run's record shows (never a server path).
 */
export function exportFile(username: string, submitted: Date, timeZone: string, id: number): string {
  return path.posix.join(
    'exports',
    'queryStudio',
    safeSegment(username),
    dateIn(submitted, timeZone),
    `expert-${id}.csv`,
  )
}

/** The 1-based line and column of a character offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset))
  const lines = before.split('\n')
  return { line: lines.length, column: lines.at(-1)!.length + 1 }
}
