import { useEffect, useState } from 'react'
import { reportQueries, runReportQuery, type Row, type SavedQuery } from '../api.ts'
import { ErrorMessage, Grid } from '../components.tsx'

/** Saved report queries: what they are (type, visibility, tags), run one, read its rows. */
export function Reports() {
  const [queries, setQueries] = useState<SavedQuery[]>()
  const [error, setError] = useState<unknown>()
  const [rows, setRows] = useState<{ code: string; rows: Row[] }>()
  const [running, setRunning] = useState<string>()

  useEffect(() => void reportQueries().then(setQueries, setError), [])

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
                  <td>
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
