import { useCallback, useEffect, useState } from 'react'
import { saveWorkbenchQuery, workbenchQueries, workbenchQuery, type SavedQuery } from './api.ts'

/**
 * The saved workbench queries of one kind (HQL for Deep, NATIVE_SQL for Expert): open one into the editor, or save
 * the editor's text under a name (a new query, or the one of that name replaced).
 */
export function SavedQueries({
  queryType,
  text,
  onOpen,
  onMessage,
  onError,
}: {
  queryType: 'HQL' | 'NATIVE_SQL'
  text: string
  onOpen: (text: string) => void
  onMessage: (message: string) => void
  onError: (error: unknown) => void
}) {
  const [saved, setSaved] = useState<SavedQuery[]>([])
  const [code, setCode] = useState('')
  const [openCode, setOpenCode] = useState<string>()

  const refresh = useCallback(() => workbenchQueries(queryType).then(setSaved, onError), [queryType, onError])
  useEffect(() => void refresh(), [refresh])

  const save = () => {
    const name = code.trim()
    if (!name) return onError(new Error('Name the query before saving it.'))
    onError(undefined)
    saveWorkbenchQuery(
      { code: name, queryText: text, queryType, visibility: 'PRIVATE' },
      saved.some((q) => q.code === name),
    ).then((q) => {
      onMessage(`Saved ${q.code}.`)
      setOpenCode(q.code)
      void refresh()
    }, onError)
  }
  const open = (chosen: string) => {
    if (!chosen) return
    workbenchQuery(chosen).then((q) => {
      onOpen(q.queryText ?? '')
      setCode(q.code)
      setOpenCode(q.code)
      onMessage(`Opened ${q.code}.`)
    }, onError)
  }

  return (
    <div className="toolbar">
      <label>
        Saved queries
        <select value={openCode ?? ''} onChange={(e) => open(e.target.value)}>
          <option value="">Open a saved query…</option>
          {saved.map((q) => (
            <option key={q.code} value={q.code}>
              {q.code}
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
  )
}
