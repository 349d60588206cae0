import { useCallback, useMemo, useState } from 'react'
import { runDeep, type DeepResult } from '../api.ts'
import { ErrorMessage, Grid, Notice } from '../components.tsx'
import { errorMark, HqlEditor } from '../HqlEditor.tsx'
import { SavedQueries } from '../SavedQueries.tsx'

const FIRST_QUERY = 'select c.code, c.name, c.seller.code as seller from Customer c order by c.code'

/** Deep mode: an HQL editor, its result grid, and saved workbench queries to reopen. */
export function Workbench() {
  const [text, setText] = useState(FIRST_QUERY)
  const [result, setResult] = useState<DeepResult>()
  const [error, setError] = useState<unknown>()
  const [running, setRunning] = useState(false)
  const [message, setMessage] = useState<string>()

  // An error at a line and column puts the cursor there.
  const mark = useMemo(() => errorMark(error), [error])

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

  const opened = useCallback((queryText: string) => {
    setText(queryText)
    setResult(undefined)
  }, [])

  return (
    <div className="screen workbench">
      <h1>Query workbench · Deep (HQL)</h1>
      <SavedQueries queryType="HQL" text={text} onOpen={opened} onMessage={setMessage} onError={setError} />
      <HqlEditor label="HQL query" value={text} onChange={setText} onRun={run} mark={mark} />
      <div className="toolbar">
        <button type="button" className="primary" onClick={run} disabled={running}>
          {running ? 'Running…' : 'Run'}
        </button>
        <span className="hint">Ctrl+Enter runs · Ctrl+Space completes entities, and fields after a dot</span>
      </div>
      <Notice message={message} />
      <ErrorMessage error={error} />
      {result && <Grid rows={result.rows} truncated={result.truncated} />}
    </div>
  )
}
