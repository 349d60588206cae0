import { useCallback, useEffect, useState, type SyntheticEvent } from 'react'
import { createGroup, groups, roles, type Group, type Role } from '../api.ts'
import { ErrorMessage } from '../components.tsx'

function GroupList({ title, list }: { title: string; list: Group[] }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {list.length === 0 && <p>None.</p>}
      {list.map((g) => (
        <details key={g.name} className="group">
          <summary>
            <strong>{g.name}</strong> <span className="muted">{g.roles.length} roles</span>
            {g.description && <span className="muted"> · {g.description}</span>}
          </summary>
          <ul className="roles">
            {g.roles.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </details>
      ))}
    </section>
  )
}

/** A custom group: a name, a description and the roles it grants (the portal endpoint, with the CSRF token). */
function NewGroup({ onCreated }: { onCreated: (group: Group) => void }) {
  const [catalog, setCatalog] = useState<Role[]>([])
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [chosen, setChosen] = useState<string[]>([])
  const [error, setError] = useState<unknown>()
  useEffect(() => void roles().then(setCatalog, setError), [])

  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    setError(undefined)
    createGroup({ name: name.trim(), description: description.trim() || undefined, roles: chosen }).then((g) => {
      setName('')
      setDescription('')
      setChosen([])
      onCreated(g)
    }, setError)
  }

  return (
    <form className="new-group" aria-label="New custom group" onSubmit={submit}>
      <h2>New custom group</h2>
      <div className="toolbar">
        <label>
          Group name
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label className="grow">
          Description
          <input value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
      </div>
      <fieldset>
        <legend>Roles</legend>
        <div className="role-choices">
          {catalog.map((r) => (
            <label key={r.name} className="check" title={r.description}>
              <input
                type="checkbox"
                checked={chosen.includes(r.name)}
                onChange={(e) =>
                  setChosen((list) => (e.target.checked ? [...list, r.name] : list.filter((n) => n !== r.name)))
                }
              />
              {r.name}
            </label>
          ))}
        </div>
      </fieldset>
      <ErrorMessage error={error} />
      <div className="toolbar">
        <button type="submit" className="primary">
          Create group
        </button>
      </div>
    </form>
  )
}

/** Groups and the roles they grant: the built-in ones, then the tenant's own, and a form to add one. */
export function Groups() {
  const [list, setList] = useState<Group[]>()
  const [error, setError] = useState<unknown>()
  const [message, setMessage] = useState<string>()
  const refresh = useCallback(() => groups().then(setList, setError), [])
  useEffect(() => void refresh(), [refresh])
  return (
    <div className="screen">
      <h1>Groups</h1>
      <ErrorMessage error={error} />
      {message && (
        <p className="notice" role="status">
          {message}
        </p>
      )}
      {list && (
        <>
          <GroupList title="Built-in groups" list={list.filter((g) => g.builtIn)} />
          <GroupList title="Custom groups" list={list.filter((g) => !g.builtIn)} />
        </>
      )}
      <NewGroup
        onCreated={(g) => {
          setMessage(`Created the group ${g.name}.`)
          void refresh()
        }}
      />
    </div>
  )
}
