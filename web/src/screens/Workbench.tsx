import { useCallback, useEffect, useMemo, useState } from 'react'
import {
  ApiError,
  runDeep,
  saveWorkbenchQuery,
  workbenchQueries,
  workbenchQuery,
  type DeepResult,
  type SavedQuery,
} from '../api.ts'
import { ErrorMessage, Grid } from '../components.tsx'
import { HqlEditor } from '../HqlEditor.tsx'

const FIRST_QUERY = 'select c.code, c.name, c.seller.code as seller from Customer c order by c.code'

/** Deep mode: an HQL editor, its result grid, and saved workbench queries to reopen. */
export function Workbench() {
  const [text, setText] = useState(FIRST_QUERY)
  const [result, setResult] = useState<DeepResult>()
  const [error, setError] = useState<unknown>()
  const [running, setRunning] = useState(false)
  const [saved, setSaved] = useState<SavedQuery[]>([])
  const [code, setCode] = useState('')
  const [openCode, setOpenCode] = useState<string>()
  const [message, setMessage] = useState<string>()

  // An error at a line and column puts the cursor there.
  const errorMark = useMemo(
    () =>
      error instanceof ApiError && error.body.line !== undefined
        ? { line: error.body.line, column: error.body.column ?? 1 }
        : undefined,
    [error],
  )

  const refresh = useCallback(() => workbenchQueries().then(setSaved, setError), [])
  useEffect(() => void refresh(), [refresh])

  const run = useCallback(() => {
    setRunning(true)
    setError(undefined)
    setMessage(undefined)
    runDeep(text)
      .then(setResult, (e: unknown) => {
        setResult(undefined)
        setError(e)
      })
      .finally(() => setRunning(false))
  }, [text])

  const save = () => {
    const name = code.trim()
    if (!name) return setError(new Error('Name the query before saving it.'))
    setError(undefined)
    saveWorkbenchQuery(
      { code: name, queryText: text, queryType: 'HQL', visibility: 'PRIVATE' },
      saved.some((q) => q.code === name),
    ).then((q) => {
      setMessage(`Saved ${q.code}.`)
      setOpenCode(q.code)
      void refresh()
    }, setError)
  }

  const open = (chosen: string) => {
    if (!chosen) return
    workbenchQuery(chosen).then((q) => {
      setText(q.queryText ?? '')
      setCode(q.code)
      setOpenCode(q.code)
      setResult(undefined)
      setMessage(`Opened ${q.code}.`)
    }, setError)
  }

  return (
    <div className="screen workbench">
      <h1>Query workbench · Deep (HQL)</h1>
      <div className="toolbar">
        <label>
          Saved queries
          <select value={openCode ?? ''} onChange={(e) => open(e.target.value)}>
            <option value="">Open a saved query…</option>
            {saved.map((q) => (
              <option key={q.code} value={q.code}>
                {q.code} ({q.queryType})
              </option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input value={code} onChange={(e) => setCode(e.target.value)} placeholder="MY_QUERY" />
        </label>
        <button type="button" onClick={save}>
          Save
        </button>
      </div>
      <HqlEditor label="HQL query" value={text} onChange={setText} onRun={run} mark={errorMark} />
      <div className="toolbar">
        <button type="button" className="primary" onClick={run} disabled={running}>
          {running ? 'Running…' : 'Run'}
        </button>
        <span className="hint">Ctrl+Enter runs · Ctrl+Space completes entities, and fields after a dot</span>
      </div>
      {message && (
        <p className="notice" role="status">
          {message}
        </p>
      )}
      <ErrorMessage error={error} />
      {result && <Grid rows={result.rows} truncated={result.truncated} />}
    </div>
  )
}
