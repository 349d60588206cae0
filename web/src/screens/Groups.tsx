import { useCallback, useEffect, useState, type SyntheticEvent } from 'react'
import { createGroup, groups, roles, type Group, type Role } from '../api.ts'
import { api, ok } from '../client.ts'
import { ErrorMessage, Notice } from '../components.tsx'

interface Member {
  username: string
  serviceAccount: boolean
}
const membersOf = (g: Group) => (g.members ?? []) as Member[]

/** A group's members, each with a button to remove them, and a form to add a user who is not one yet. */
function Membership({
  group,
  users,
  onChanged,
}: {
  group: Group
  users: string[]
  onChanged: (message: string) => void
}) {
  const members = membersOf(group)
  const candidates = users.filter((u) => !members.some((m) => m.username === u))
  const [chosen, setChosen] = useState('')
  const [error, setError] = useState<unknown>()
  const name = group.name
  const add = (event: SyntheticEvent) => {
    event.preventDefault()
    setError(undefined)
    ok(api.POST('/api/v1/groups/{name}/members', { params: { path: { name } }, body: { username: chosen } })).then(
      () => {
        setChosen('')
        onChanged(`Added ${chosen} to ${name}.`)
      },
      setError,
    )
  }
  const remove = (username: string) => {
    setError(undefined)
    ok(api.DELETE('/api/v1/groups/{name}/members/{username}', { params: { path: { name, username } } })).then(
      () => onChanged(`Removed ${username} from ${name}.`),
      setError,
    )
  }
  return (
    <div className="members">
      <h3>Members</h3>
      {members.length === 0 && <p className="muted">No members.</p>}
      <ul>
        {members.map((m) => (
          <li key={m.username}>
            {m.username}
            {m.serviceAccount && <span className="muted"> (service account)</span>}{' '}
            <button type="button" onClick={() => remove(m.username)} aria-label={`Remove ${m.username} from ${name}`}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      {candidates.length > 0 && (
        <form className="toolbar" onSubmit={add} aria-label={`Add a member to ${name}`}>
          <label>
            User to add
            <select value={chosen} onChange={(e) => setChosen(e.target.value)} required>
              <option value="">Choose a user…</option>
              {candidates.map((u) => (
                <option key={u}>{u}</option>
              ))}
            </select>
          </label>
          <button type="submit">Add member</button>
        </form>
      )}
      <ErrorMessage error={error} />
    </div>
  )
}

function GroupList({
  title,
  list,
  users,
  onChanged,
}: {
  title: string
  list: Group[]
  users: string[]
  onChanged: (message: string) => void
}) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {list.length === 0 && <p>None.</p>}
      {list.map((g) => (
        <details key={g.name} className="group">
          <summary>
            <strong>{g.name}</strong> <span className="muted">{g.roles.length} roles</span>
            <span className="muted">
              {' '}
              · {membersOf(g).length} {membersOf(g).length === 1 ? 'member' : 'members'}
            </span>
            {g.description && <span className="muted"> · {g.description}</span>}
          </summary>
          <ul className="roles">
            {g.roles.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
          <Membership group={g} users={users} onChanged={onChanged} />
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
  const [users, setUsers] = useState<string[]>([])
  const refresh = useCallback(() => groups().then(setList, setError), [])
  useEffect(() => void refresh(), [refresh])
  useEffect(() => {
    ok(api.GET('/api/v1/users', { params: { query: { limit: 1000 } } })).then(
      (page) => setUsers(page.data.map((u) => u.username).sort()),
      setError,
    )
  }, [])
  const changed = (text: string) => {
    setMessage(text)
    void refresh()
  }
  return (
    <div className="screen">
      <h1>Groups</h1>
      <ErrorMessage error={error} />
      <Notice message={message} />
      {list && (
        <>
          <GroupList title="Built-in groups" list={list.filter((g) => g.builtIn)} users={users} onChanged={changed} />
          <GroupList title="Custom groups" list={list.filter((g) => !g.builtIn)} users={users} onChanged={changed} />
        </>
      )}
      <NewGroup onCreated={(g) => changed(`Created the group ${g.name}.`)} />
    </div>
  )
}
