import { useCallback, useEffect, useMemo, useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { api, ok, type Got } from '../client.ts'
import { ErrorMessage, Notice } from '../components.tsx'
import { SavedQueries } from '../SavedQueries.tsx'
import { errorMark, HqlEditor } from '../HqlEditor.tsx'
import type { SQLNamespace } from '@codemirror/lang-sql'

type Execution = Got<'/api/v1/workbench/expert/executions/{id}'>

const FIRST_QUERY = 'select code, name from customer order by code'
/** A running run's record is read again every second: its status, elapsed time and rows so far. */
const POLL_MS = 1000
const RUN_KEY = (id: number | undefined) => ['expert-run', id] as const
const RUNS_KEY = ['expert-runs'] as const

const STATUS_WORDS: Record<string, string> = {
  SUCCESS: 'Done',
  FAILED: 'Failed',
  TIMEOUT: 'Timed out',
  CANCELLED: 'Cancelled',
}
const statusWord = (e: Execution) => (e.status === null ? 'Running' : (STATUS_WORDS[e.status] ?? e.status))
const count = (n: number) => n.toLocaleString('en-US')

/** A run just accepted, shown at once while its record is read. */
function acceptedRun(id: number, text: string): Execution {
  return {
    id,
    status: null,
    startDate: new Date().toISOString(),
    endDate: null,
    lineCount: null,
    durationMs: null,
    filePath: null,
    queryHash: '',
    queryText: text,
    username: '',
    errorMessage: null,
    savedQueryCode: null,
    rowsSoFar: null,
    truncated: false,
    truncatedMessage: null,
  }
}

/** Seconds as a person reads them: "0.04 s", "12 s", "2 min 5 s". */
function seconds(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`
  const s = Math.round(ms / 1000)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}
const elapsed = (e: Execution, now: number) =>
  seconds(e.durationMs ?? (e.endDate ? Date.parse(e.endDate) : now) - Date.parse(e.startDate))

/** Fetches the CSV with the bearer token, then hands it to the browser as a file download. */
async function download(id: number): Promise<void> {
  const csv = await ok(
    api.GET('/api/v1/workbench/expert/executions/{id}/file', { params: { path: { id } }, parseAs: 'blob' }),
  )
  const url = URL.createObjectURL(csv)
  const link = document.createElement('a')
  link.href = url
  link.download = `expert-${id}.csv`
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** Expert mode: native SQL run in the background into a CSV file, its live status, and the user's recent runs. */
export function Expert() {
  const [text, setText] = useState(FIRST_QUERY)
  const [error, setError] = useState<unknown>()
  const [submitting, setSubmitting] = useState(false)
  const [now, setNow] = useState(() => Date.now())
  const [message, setMessage] = useState<string>()
  // An error at a line and column puts the cursor there.
  const mark = useMemo(() => errorMark(error), [error])
  const queries = useQueryClient()
  // The current run lives in the address (?run=id): leaving the screen and coming back, or a reload, finds it.
  const [params, setParams] = useSearchParams()
  const runId = Number(params.get('run')) || undefined

  const recentQuery = useQuery({
    queryKey: RUNS_KEY,
    queryFn: () => ok(api.GET('/api/v1/workbench/expert/executions', { params: { query: { offset: 0, limit: 10 } } })),
    staleTime: 0,
  })
  const recent = recentQuery.data?.data ?? []
  const refresh = useCallback(() => queries.invalidateQueries({ queryKey: RUNS_KEY }), [queries])

  // The current run's record, read again every second while it has no status.
  const runQuery = useQuery({
    queryKey: RUN_KEY(runId),
    queryFn: () => ok(api.GET('/api/v1/workbench/expert/executions/{id}', { params: { path: { id: runId! } } })),
    enabled: runId !== undefined,
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.status === null ? POLL_MS : false),
  })
  const current = runQuery.data
  const running = current !== undefined && current.status === null
  useEffect(() => {
    if (current && current.status !== null) void refresh()
  }, [current?.status, refresh, current])
  // The elapsed time moves every second while it runs.
  useEffect(() => {
    if (!running) return
    const tick = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(tick)
  }, [running])

  // Completion offers only the tables the Expert role can read (the API lists them), columns after `table.`.
  const [tables, setTables] = useState<SQLNamespace>()
  useEffect(() => {
    ok(api.GET('/api/v1/workbench/expert/schema/tables')).then(
      (answer) =>
        setTables(
          Object.fromEntries(
            answer.tables.map((table) => [
              table.name,
              table.columns.map((c) => ({
                label: c.name,
                type: 'property',
                detail: c.references ? `→ ${c.references}` : c.type,
              })),
            ]),
          ),
        ),
      setError,
    )
  }, [])

  const submit = useCallback(() => {
    setSubmitting(true)
    setError(undefined)
    setMessage(undefined)
    ok(api.POST('/api/v1/workbench/expert/execute', { body: { query: text } }))
      .then((accepted) => {
        const id = accepted.queryExecutionResultId
        // Shown at once, running, before its first read.
        queries.setQueryData(RUN_KEY(id), acceptedRun(id, text))
        setNow(Date.now())
        setParams({ run: String(id) })
        void refresh()
      }, setError)
      .finally(() => setSubmitting(false))
  }, [text, refresh, queries, setParams])

  const cancel = (id: number) => {
    setError(undefined)
    ok(api.DELETE('/api/v1/workbench/expert/executions/{id}', { params: { path: { id } } })).then((e) => {
      queries.setQueryData(RUN_KEY(id), e)
      void queries.invalidateQueries({ queryKey: RUN_KEY(id) })
      void refresh()
    }, setError)
  }
  const save = (id: number) => {
    setError(undefined)
    download(id).catch(setError)
  }

  return (
    <div className="screen workbench">
      <h1>Query workbench · Expert (SQL)</h1>
      <p className="muted">
        A read-only SQL query over the database runs in the background into a CSV file; its status, time and rows so far
        update every second, and it stays here when you come back.
      </p>
      <SavedQueries queryType="NATIVE_SQL" text={text} onOpen={setText} onMessage={setMessage} onError={setError} />
      <HqlEditor
        label="SQL query"
        value={text}
        onChange={setText}
        onRun={submit}
        mark={mark}
        schemaCompletion={false}
        sqlSchema={tables}
      />
      <div className="toolbar">
        <button type="button" className="primary" onClick={submit} disabled={submitting}>
          {submitting ? 'Submitting…' : 'Submit'}
        </button>
        <span className="hint">Ctrl+Enter submits</span>
      </div>
      <Notice message={message} />
      <ErrorMessage error={error ?? runQuery.error ?? recentQuery.error} />
      {current && (
        <section className="run-status" aria-label="Current run" aria-live="polite">
          <h2>Run {current.id}</h2>
          <p data-testid="run-status">
            <strong>{statusWord(current)}</strong> · {elapsed(current, now)}
            {current.status !== null ? ' in all' : ' elapsed'}
            {current.lineCount !== null &&
              ` · ${count(current.lineCount)} ${current.lineCount === 1 ? 'line' : 'lines'}`}
            {current.status === null &&
              (current.rowsSoFar === null ? ' · starting' : ` · ${count(current.rowsSoFar)} rows so far`)}
          </p>
          {current.truncatedMessage && (
            <p className="notice" data-testid="run-cap">
              {current.truncatedMessage}
            </p>
          )}
          {current.errorMessage && <div className="error">{current.errorMessage}</div>}
          <div className="toolbar">
            {current.status === 'SUCCESS' && (
              <button type="button" className="primary" onClick={() => save(current.id)}>
                Download CSV
              </button>
            )}
            {running && (
              <button type="button" onClick={() => cancel(current.id)}>
                Cancel run
              </button>
            )}
          </div>
        </section>
      )}
      <h2>Your recent runs</h2>
      {recent.length === 0 ? (
        <p className="muted">No runs yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="list stack" aria-label="Recent runs">
            <thead>
              <tr>
                <th>Run</th>
                <th>Started</th>
                <th>Status</th>
                <th className="number">Lines</th>
                <th className="number">Time</th>
                <th>Query</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {recent.map((e) => (
                <tr key={e.id}>
                  <td className="code" data-label="Run">
                    {e.id}
                  </td>
                  <td data-label="Started">{new Date(e.startDate).toLocaleString()}</td>
                  <td data-label="Status">{statusWord(e)}</td>
                  <td data-label="Lines" className="number">
                    {e.lineCount === null ? (e.rowsSoFar === null ? '' : `${count(e.rowsSoFar)}…`) : count(e.lineCount)}
                    {e.truncated && ' (cap)'}
                  </td>
                  <td data-label="Time" className="number">
                    {e.durationMs === null ? '' : seconds(e.durationMs)}
                  </td>
                  <td className="query-text" title={e.queryText}>
                    {e.queryText}
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      onClick={() => {
                        setText(e.queryText)
                        setParams({ run: String(e.id) })
                      }}
                      aria-label={`Open the query of run ${e.id}`}
                    >
                      Open
                    </button>
                    {e.status === 'SUCCESS' && (
                      <button type="button" onClick={() => save(e.id)} aria-label={`Download the CSV of run ${e.id}`}>
                        Download
                      </button>
                    )}
                    {e.status === null && (
                      <button type="button" onClick={() => cancel(e.id)} aria-label={`Cancel run ${e.id}`}>
                        Cancel
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}
