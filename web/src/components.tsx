import { useMemo, useState, type ReactNode } from 'react'
import { Alert, Button, Group, Pagination, Table, Text, TextInput, UnstyledButton } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { ApiError } from './api.ts'

/** A row of a result: column name → value, as the API sent it. */
export type Row = Record<string, unknown>

/**
 * An error as a person reads it: the API's sentence, the line and column of a query, when to retry. The raw error
 * code is not shown: the sentence says what went wrong (the code stays in the response for programs).
 */
export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null
  let text = error instanceof Error ? error.message : 'Something went wrong.'
  if (error instanceof ApiError) {
    const { line, column } = error.body
    if (line !== undefined && !error.message.includes(`line ${line}`)) text += ` (line ${line}, column ${column ?? 1})`
    if (error.retryAfterSec !== undefined && !/retry in/i.test(error.message))
      text += ` Retry in ${error.retryAfterSec} s.`
  }
  return (
    <Alert
      color="red"
      variant="light"
      role="alert"
      className="error"
      my="xs"
      styles={{ message: { overflowWrap: 'anywhere' } }}
    >
      {text}
    </Alert>
  )
}

/** What just happened ("Saved.", "Published…"), read out by screen readers when it changes. */
export function Notice({ message }: { message: string | undefined }) {
  if (!message) return null
  return (
    <Alert color="blue" variant="light" role="status" className="notice" my="xs">
      {message}
    </Alert>
  )
}

/** A short confirmation in the corner ("Deleted MY_QUERY."), for writes whose result is already on the screen. */
export function notify(message: string, color: 'green' | 'red' | 'blue' = 'green'): void {
  notifications.show({ message, color, autoClose: 4000 })
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  // Strings as they are; numbers, booleans and nested objects as JSON writes them.
  return typeof value === 'string' ? value : JSON.stringify(value)
}

export function csv(columns: string[], rows: Row[]): string {
  const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text)
  return [columns.map(quote).join(','), ...rows.map((r) => columns.map((c) => quote(cell(r[c]))).join(','))].join('\n')
}

/** A column of a DataTable: the key it reads, its header, and how a value is shown (as text by default). */
export interface Column<T> {
  key: string
  header: string
  render?: (row: T) => ReactNode
  /** The text it sorts, filters and copies by (the value by default). */
  text?: (row: T) => string
  numeric?: boolean
}

/**
 * Rows as a table (Mantine): sortable by clicking a header, a filter on every column's text, paged, the row count,
 * and a copy as CSV of the rows as filtered and sorted. Columns from the rows' keys unless given.
 */
export function DataTable<T extends object>({
  rows,
  columns: given,
  truncated = false,
  pageSize = 25,
  label = 'Result',
  actions,
  rowKey,
}: {
  rows: T[]
  columns?: Column<T>[]
  truncated?: boolean
  pageSize?: number
  label?: string
  /** Buttons at the end of each row (Run, Delete…). */
  actions?: (row: T) => ReactNode
  rowKey?: (row: T, index: number) => string | number
}) {
  const [page, setPage] = useState(1)
  const [sort, setSort] = useState<{ column: string; descending: boolean }>()
  const [filter, setFilter] = useState('')
  const [copied, setCopied] = useState(false)
  const columns = useMemo<Column<T>[]>(() => {
    if (given) return given
    const seen = new Set<string>()
    for (const row of rows) for (const key of Object.keys(row)) seen.add(key)
    return [...seen].map((key) => ({ key, header: key }))
  }, [rows, given])
  const textOf = (row: T, c: Column<T>) => (c.text ? c.text(row) : cell((row as Row)[c.key]))
  const filtered = useMemo(() => {
    const words = filter.trim().toLowerCase()
    if (!words) return rows
    return rows.filter((r) => columns.some((c) => textOf(r, c).toLowerCase().includes(words)))
  }, [rows, columns, filter])
  const sorted = useMemo(() => {
    if (!sort) return filtered
    const column = columns.find((c) => c.key === sort.column)
    if (!column) return filtered
    const order = (a: T, b: T) => {
      const [x, y] = [(a as Row)[column.key], (b as Row)[column.key]]
      if (!column.text && typeof x === 'number' && typeof y === 'number') return x - y
      return textOf(a, column).localeCompare(textOf(b, column), undefined, { numeric: true })
    }
    return [...filtered].sort((a, b) => (sort.descending ? -order(a, b) : order(a, b)))
  }, [filtered, columns, sort])
  const pages = Math.max(1, Math.ceil(sorted.length / pageSize))
  const current = Math.min(page, pages)
  const shown = sorted.slice((current - 1) * pageSize, current * pageSize)
  const count = filter.trim() ? `${sorted.length} of ${rows.length}` : `${rows.length}`

  return (
    <section className="grid" aria-label={label}>
      <Group gap="sm" my="xs" wrap="wrap">
        <Text size="sm" data-testid="row-count">
          {count} {rows.length === 1 ? 'row' : 'rows'}
        </Text>
        {truncated && (
          <Text size="sm" c="orange.8">
            Truncated: the server sends at most this many rows.
          </Text>
        )}
        <span className="spacer" />
        {rows.length > pageSize / 5 && (
          <TextInput
            size="xs"
            aria-label={`Filter ${label.toLowerCase()}`}
            placeholder="Filter rows…"
            value={filter}
            onChange={(e) => {
              setFilter(e.currentTarget.value)
              setPage(1)
            }}
          />
        )}
        {rows.length > 0 && (
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              void navigator.clipboard
                .writeText(
                  csv(
                    columns.map((c) => c.key),
                    sorted.map((r) => Object.fromEntries(columns.map((c) => [c.key, textOf(r, c)]))),
                  ),
                )
                .then(() => setCopied(true))
            }}
          >
            {copied ? 'Copied' : 'Copy as CSV'}
          </Button>
        )}
      </Group>
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={0} type="native">
          <Table striped highlightOnHover verticalSpacing={6} fz="sm">
            <Table.Thead>
              <Table.Tr>
                {columns.map((c) => (
                  <Table.Th
                    key={c.key}
                    className={c.numeric ? 'number' : undefined}
                    aria-sort={sort?.column === c.key ? (sort.descending ? 'descending' : 'ascending') : undefined}
                  >
                    <UnstyledButton
                      fw={600}
                      fz="sm"
                      onClick={() => {
                        setSort({ column: c.key, descending: sort?.column === c.key && !sort.descending })
                        setPage(1)
                      }}
                    >
                      {c.header}
                      {sort?.column === c.key ? (sort.descending ? ' ▼' : ' ▲') : ''}
                    </UnstyledButton>
                  </Table.Th>
                ))}
                {actions && (
                  <Table.Th>
                    <span className="visually-hidden">Action</span>
                  </Table.Th>
                )}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((row, i) => (
                <Table.Tr key={rowKey ? rowKey(row, i) : (current - 1) * pageSize + i}>
                  {columns.map((c) => (
                    <Table.Td key={c.key} className={c.numeric ? 'number' : undefined}>
                      {c.render ? c.render(row) : textOf(row, c)}
                    </Table.Td>
                  ))}
                  {actions && (
                    <Table.Td className="actions">
                      <Group gap={6} wrap="nowrap">
                        {actions(row)}
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {pages > 1 && (
        <Group justify="flex-end" mt="xs" gap="xs" className="pager">
          <Text size="sm">
            Page {current} of {pages}
          </Text>
          <Pagination
            size="sm"
            total={pages}
            value={current}
            onChange={setPage}
            siblings={0}
            getControlProps={(control) =>
              control === 'previous' ? { 'aria-label': 'Previous' } : control === 'next' ? { 'aria-label': 'Next' } : {}
            }
          />
        </Group>
      )}
    </section>
  )
}

/** The workbench result grid, kept under its name: a DataTable with columns from the rows. */
export function Grid({
  rows,
  truncated = false,
  pageSize = 25,
}: {
  rows: Row[]
  truncated?: boolean
  pageSize?: number
}) {
  return <DataTable rows={rows} truncated={truncated} pageSize={pageSize} />
}
