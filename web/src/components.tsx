import { useMemo, useState } from 'react'
import { ApiError, type Row } from './api.ts'

/** An error as a person reads it: the API's message, the line and column of a query, when to retry. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null
  if (error instanceof ApiError) {
    const { line, column, errorCode } = error.body
    return (
      <div className="error" role="alert">
        <strong>{error.message}</strong>
        {line !== undefined && !error.message.includes(`line ${line}`) && (
          <span className="where">
            {' '}
            (line {line}, column {column ?? 1})
          </span>
        )}
        {error.retryAfterSec !== undefined && !/retry in/i.test(error.message) && (
          <span> Retry in {error.retryAfterSec} s.</span>
        )}
        {errorCode && <span className="code"> {errorCode}</span>}
      </div>
    )
  }
  return (
    <div className="error" role="alert">
      <strong>{error instanceof Error ? error.message : 'Something went wrong.'}</strong>
    </div>
  )
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  // Strings as they are; numbers, booleans and nested objects as JSON writes them.
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function csv(columns: string[], rows: Row[]): string {
  const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text)
  return [columns.map(quote).join(','), ...rows.map((r) => columns.map((c) => quote(cell(r[c]))).join(','))].join('\n')
}

/** Rows as a table: columns from the rows' keys, sortable by clicking a header, paged, with the row count. */
export function Grid({
  rows,
  truncated = false,
  pageSize = 25,
}: {
  rows: Row[]
  truncated?: boolean
  pageSize?: number
}) {
  const [page, setPage] = useState(0)
  const [sort, setSort] = useState<{ column: string; descending: boolean }>()
  const [copied, setCopied] = useState(false)
  const columns = useMemo(() => {
    const seen = new Set<string>()
    for (const row of rows) for (const key of Object.keys(row)) seen.add(key)
    return [...seen]
  }, [rows])
  const sorted = useMemo(() => {
    if (!sort) return rows
    const { column, descending } = sort
    const order = (a: Row, b: Row) => {
      const [x, y] = [a[column], b[column]]
      if (typeof x === 'number' && typeof y === 'number') return x - y
      return cell(x).localeCompare(cell(y), undefined, { numeric: true })
    }
    return [...rows].sort((a, b) => (descending ? -order(a, b) : order(a, b)))
  }, [rows, sort])
  const pages = Math.max(1, Math.ceil(rows.length / pageSize))
  const current = Math.min(page, pages - 1)
  const shown = sorted.slice(current * pageSize, (current + 1) * pageSize)

  return (
    <section className="grid" aria-label="Result">
      <div className="grid-bar">
        <span data-testid="row-count">
          {rows.length} {rows.length === 1 ? 'row' : 'rows'}
        </span>
        {truncated && <span className="warning">Truncated: the server sends at most this many rows.</span>}
        <span className="spacer" />
        {rows.length > 0 && (
          <button
            type="button"
            onClick={() => {
              void navigator.clipboard.writeText(csv(columns, sorted)).then(() => setCopied(true))
            }}
          >
            {copied ? 'Copied' : 'Copy as CSV'}
          </button>
        )}
      </div>
      {rows.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th
                    key={c}
                    aria-sort={sort?.column === c ? (sort.descending ? 'descending' : 'ascending') : undefined}
                  >
                    <button
                      type="button"
                      onClick={() => {
                        setSort({ column: c, descending: sort?.column === c && !sort.descending })
                        setPage(0)
                      }}
                    >
                      {c}
                      {sort?.column === c ? (sort.descending ? ' ▼' : ' ▲') : ''}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((row, i) => (
                <tr key={current * pageSize + i}>
                  {columns.map((c) => (
                    <td key={c}>{cell(row[c])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </button>
          <span>
            Page {current + 1} of {pages}
          </span>
          <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </button>
        </nav>
      )}
    </section>
  )
}

/** What just happened ("Saved.", "Published…"), read out by screen readers when it changes. */
export function Notice({ message }: { message: string | undefined }) {
  if (!message) return null
  return (
    <p className="notice" role="status">
      {message}
    </p>
  )
}
