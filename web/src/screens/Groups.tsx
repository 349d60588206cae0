import { useEffect, useState } from 'react'
import { groups, type Group } from '../api.ts'
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

/** Groups and the roles they grant: the built-in ones, then the tenant's own. */
export function Groups() {
  const [list, setList] = useState<Group[]>()
  const [error, setError] = useState<unknown>()
  useEffect(() => void groups().then(setList, setError), [])
  return (
    <div className="screen">
      <h1>Groups</h1>
      <ErrorMessage error={error} />
      {list && (
        <>
          <GroupList title="Built-in groups" list={list.filter((g) => g.builtIn)} />
          <GroupList title="Custom groups" list={list.filter((g) => !g.builtIn)} />
        </>
      )}
    </div>
  )
}
