import { useCallback, useEffect, useState } from 'react'
import { reportQueries, runReportQuery, type Row, type SavedQuery } from '../api.ts'
import { api, ok } from '../client.ts'
import { ErrorMessage, Grid } from '../components.tsx'
import { ReportBuilder } from './ReportBuilder.tsx'

/** Saved report queries: what they are (type, visibility, tags), run one, read its rows. */
export function Reports() {
  const [queries, setQueries] = useState<SavedQuery[]>()
  const [error, setError] = useState<unknown>()
  const [rows, setRows] = useState<{ code: string; rows: Row[] }>()
  const [running, setRunning] = useState<string>()
  // The builder: closed, open on a new query (null), or open on a saved VISUAL query.
  const [building, setBuilding] = useState<SavedQuery | null>()

  const refresh = useCallback(() => reportQueries().then(setQueries, setError), [])
  useEffect(() => void refresh(), [refresh])

  const edit = (code: string) => {
    setError(undefined)
    ok(api.GET('/api/v1/reportQueries/{code}', { params: { path: { code } } })).then(
      (q) => setBuilding(q as unknown as SavedQuery),
      setError,
    )
  }

  const run = (code: string) => {
    setRunning(code)
    setError(undefined)
    runReportQuery(code)
      .then((r) => setRows({ code, rows: r }), setError)
      .finally(() => setRunning(undefined))
  }

  return (
    <div className="screen">
      <h1>Saved report queries</h1>
      {building === undefined ? (
        <div className="toolbar">
          <button type="button" className="primary" onClick={() => setBuilding(null)}>
            New visual query
          </button>
        </div>
      ) : (
        <ReportBuilder
          key={building?.code ?? 'new'}
          editing={building ?? undefined}
          onSaved={() => void refresh()}
          onClose={() => setBuilding(undefined)}
        />
      )}
      <ErrorMessage error={error} />
      {queries && (
        <div className="table-scroll">
          <table className="list stack">
            <thead>
              <tr>
                <th>Code</th>
                <th>Description</th>
                <th>Type</th>
                <th>Entity</th>
                <th>Visibility</th>
                <th>Tags</th>
                <th>
                  <span className="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {queries.map((q) => (
                <tr key={q.code}>
                  <td className="code">{q.code}</td>
                  <td data-label="Description">{q.description}</td>
                  <td data-label="Type">{q.queryType}</td>
                  <td data-label="Entity">{q.targetEntity}</td>
                  <td data-label="Visibility">{q.visibility}</td>
                  <td>
                    {(q.tags ?? []).map((t) => (
                      <span key={t} className="tag">
                        {t}
                      </span>
                    ))}
                  </td>
                  <td className="actions">
                    {q.queryType === 'VISUAL' && !q.system && (
                      <button type="button" onClick={() => edit(q.code)} aria-label={`Edit ${q.code}`}>
                        Edit
                      </button>
                    )}
                    <button
                      type="button"
                      onClick={() => run(q.code)}
                      disabled={running !== undefined}
                      aria-label={`Run ${q.code}`}
                    >
                      {running === q.code ? 'Running…' : 'Run'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rows && (
        <>
          <h2>{rows.code}</h2>
          <Grid rows={rows.rows} />
        </>
      )}
    </div>
  )
}
