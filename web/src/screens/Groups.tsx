import { useState, type SyntheticEvent } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Button, Checkbox, Group as Row, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core'
import { createGroup } from '../api.ts'
import { api, ok, type Schemas } from '../client.ts'
import { ErrorMessage, Notice, notify } from '../components.tsx'

type Group = Schemas['Group']
type Role = Schemas['Role']
const GROUPS = ['groups'] as const

/** The domains of the role catalogue, in words, in the order a billing team meets them. */
const DOMAINS: Record<string, string> = {
  accounts: 'Accounts',
  catalog: 'Catalog',
  ordering: 'Ordering',
  billing: 'Billing',
  finance: 'Finance',
  api: 'Administration',
  query: 'Queries and reports',
}
const domainOf = (r: Role) => r.domain ?? 'query'

function useRoles() {
  return useQuery({
    queryKey: ['roles'],
    queryFn: async () => (await ok(api.GET('/api/v1/roles'))).data,
    staleTime: Infinity,
  })
}

/** The role catalogue grouped by domain, a checkbox and the server's one-line description each. */
function RolePicker({ chosen, onChange }: { chosen: string[]; onChange: (roles: string[]) => void }) {
  const catalogue = useRoles()
  const byDomain = new Map<string, Role[]>()
  for (const r of catalogue.data ?? []) byDomain.set(domainOf(r), [...(byDomain.get(domainOf(r)) ?? []), r])
  const domains = [...byDomain.keys()].sort(
    (a, b) => Object.keys(DOMAINS).indexOf(a) - Object.keys(DOMAINS).indexOf(b) || a.localeCompare(b),
  )
  return (
    <Stack gap="sm">
      <ErrorMessage error={catalogue.error} />
      {domains.map((d) => {
        const roles = byDomain.get(d)!
        const picked = roles.filter((r) => chosen.includes(r.name)).length
        return (
          <fieldset key={d} className="role-domain">
            <legend>
              {DOMAINS[d] ?? d}{' '}
              <Text span size="xs" c="dimmed">
                {picked} of {roles.length}
              </Text>
            </legend>
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="xs" verticalSpacing={6}>
              {roles.map((r) => (
                <Checkbox
                  key={r.name}
                  label={r.name}
                  description={r.description}
                  checked={chosen.includes(r.name)}
                  onChange={(e) =>
                    onChange(e.currentTarget.checked ? [...chosen, r.name].sort() : chosen.filter((n) => n !== r.name))
                  }
                />
              ))}
            </SimpleGrid>
          </fieldset>
        )
      })}
    </Stack>
  )
}

/** A group's members, each with a button to remove them, and a form to add a user who is not one yet. */
function Membership({ group, users, onChanged }: { group: Group; users: string[]; onChanged: (m: string) => void }) {
  const members = group.members
  const candidates = users.filter((u) => !members.some((m) => m.username === u))
  const [chosen, setChosen] = useState<string | null>(null)
  const [error, setError] = useState<unknown>()
  const name = group.name
  const add = (event: SyntheticEvent) => {
    event.preventDefault()
    if (!chosen) return
    setError(undefined)
    ok(api.POST('/api/v1/groups/{name}/members', { params: { path: { name } }, body: { username: chosen } })).then(
      () => {
        setChosen(null)
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
      <Title order={3} size="h5" mt="sm">
        Members
      </Title>
      {members.length === 0 && <p className="muted">No members.</p>}
      <ul>
        {members.map((m) => (
          <li key={m.username}>
            {m.username}
            {m.serviceAccount && <span className="muted"> (service account)</span>}{' '}
            <Button
              size="compact-xs"
              variant="default"
              onClick={() => remove(m.username)}
              aria-label={`Remove ${m.username} from ${name}`}
            >
              Remove
            </Button>
          </li>
        ))}
      </ul>
      {candidates.length > 0 && (
        <form onSubmit={add} aria-label={`Add a member to ${name}`}>
          <Row gap="sm" align="flex-end">
            <Select
              label="User to add"
              placeholder="Choose a user…"
              data={candidates}
              value={chosen}
              onChange={setChosen}
              searchable
              w={{ base: '100%', xs: 240 }}
            />
            <Button type="submit" variant="default" disabled={!chosen}>
              Add member
            </Button>
          </Row>
        </form>
      )}
      <ErrorMessage error={error} />
    </div>
  )
}

/** A custom group changed: its name, description and roles (at least one), saved with PUT; or deleted. */
function EditGroup({ group, onDone }: { group: Group; onDone: (message?: string) => void }) {
  const client = useQueryClient()
  const [name, setName] = useState(group.name)
  const [description, setDescription] = useState(group.description ?? '')
  const [roles, setRoles] = useState<string[]>(group.roles)
  const save = useMutation({
    mutationFn: () =>
      ok(
        api.PUT('/api/v1/groups/{name}', {
          params: { path: { name: group.name } },
          body: { name: name.trim(), description: description.trim() || null, roles },
        }),
      ),
    onSuccess: (g) => {
      if (g.name !== group.name) justSaved.add(g.name)
      void client.invalidateQueries({ queryKey: GROUPS })
      onDone(`Saved the group ${g.name}.`)
    },
  })
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/groups/{name}', { params: { path: { name: group.name } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: GROUPS })
      notify(`Deleted the group ${group.name}.`)
      onDone(`Deleted the group ${group.name}.`)
    },
  })
  return (
    <form
      aria-label={`Edit ${group.name}`}
      onSubmit={(e) => {
        e.preventDefault()
        save.mutate()
      }}
    >
      <Stack gap="sm" mt="sm">
        <Row gap="sm" align="flex-end" wrap="wrap">
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
          <TextInput
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            style={{ flex: '1 1 14rem' }}
          />
        </Row>
        <RolePicker chosen={roles} onChange={setRoles} />
        {roles.length === 0 && (
          <Text size="sm" c="orange.8">
            A group needs at least one role.
          </Text>
        )}
        <ErrorMessage error={save.error ?? remove.error} />
        <Row gap="sm">
          <Button type="submit" loading={save.isPending} disabled={roles.length === 0}>
            Save changes
          </Button>
          <Button variant="default" onClick={() => onDone()}>
            Cancel
          </Button>
          <span className="spacer" />
          <Button
            color="red"
            variant="light"
            loading={remove.isPending}
            onClick={() => {
              if (window.confirm(`Delete the group ${group.name}? Its members lose its roles.`)) remove.mutate()
            }}
          >
            Delete group
          </Button>
        </Row>
      </Stack>
    </form>
  )
}

/**
 * A group renamed in its card comes back under its new name as a new card: that card opens as the old one was, so
 * the person who saved stays on the group (the names of the groups just saved, read once by their new card).
 */
const justSaved = new Set<string>()

function GroupCard({ group, users, onChanged }: { group: Group; users: string[]; onChanged: (m: string) => void }) {
  const [editing, setEditing] = useState(false)
  const [open] = useState(() => justSaved.delete(group.name))
  const catalogue = useRoles()
  const describe = (name: string) => catalogue.data?.find((r) => r.name === name)?.description
  return (
    <details className="group" open={open || undefined}>
      <summary>
        <strong>{group.name}</strong> <span className="muted">{group.roles.length} roles</span>
        <span className="muted">
          {' '}
          · {group.members.length} {group.members.length === 1 ? 'member' : 'members'}
        </span>
        {group.description && <span className="muted"> · {group.description}</span>}
      </summary>
      {editing ? (
        <EditGroup
          group={group}
          onDone={(message) => {
            setEditing(false)
            if (message) onChanged(message)
          }}
        />
      ) : (
        <>
          <ul className="roles">
            {group.roles.map((r) => (
              <li key={r} title={describe(r)}>
                {r}
              </li>
            ))}
          </ul>
          {group.builtIn ? (
            <Text size="sm" c="dimmed">
              A built-in group: its name and roles are fixed.
            </Text>
          ) : (
            <Button size="xs" variant="default" onClick={() => setEditing(true)} aria-label={`Edit ${group.name}`}>
              Edit name and roles
            </Button>
          )}
        </>
      )}
      <Membership group={group} users={users} onChanged={onChanged} />
    </details>
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
  onChanged: (m: string) => void
}) {
  return (
    <section aria-label={title}>
      <Title order={2} size="h4" mt="md" mb="xs">
        {title}
      </Title>
      {list.length === 0 && <p>None.</p>}
      {list.map((g) => (
        <GroupCard key={g.name} group={g} users={users} onChanged={onChanged} />
      ))}
    </section>
  )
}

/** A custom group: a name, a description and the roles it grants (the portal endpoint, with the CSRF token). */
function NewGroup({ onCreated }: { onCreated: (group: Group) => void }) {
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [chosen, setChosen] = useState<string[]>([])
  const create = useMutation({
    mutationFn: () =>
      createGroup({ name: name.trim(), description: description.trim() || undefined, roles: chosen }) as Promise<Group>,
    onSuccess: (g) => {
      setName('')
      setDescription('')
      setChosen([])
      onCreated(g)
    },
  })
  return (
    <form
      className="new-group"
      aria-label="New custom group"
      onSubmit={(e) => {
        e.preventDefault()
        create.mutate()
      }}
    >
      <Title order={2} size="h4" mt="lg" mb="xs">
        New custom group
      </Title>
      <Stack gap="sm">
        <Row gap="sm" align="flex-end" wrap="wrap">
          <TextInput label="Group name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
          <TextInput
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            style={{ flex: '1 1 14rem' }}
          />
        </Row>
        <Text size="sm" fw={600}>
          Roles (at least one)
        </Text>
        <RolePicker chosen={chosen} onChange={setChosen} />
        <ErrorMessage error={create.error} />
        <Row>
          <Button type="submit" loading={create.isPending}>
            Create group
          </Button>
        </Row>
      </Stack>
    </form>
  )
}

/** Groups and the roles they grant: the built-in ones, then the tenant's own (editable), and a form to add one. */
export function Groups() {
  const client = useQueryClient()
  const [message, setMessage] = useState<string>()
  const groups = useQuery({
    queryKey: GROUPS,
    queryFn: async () => (await ok(api.GET('/api/v1/groups'))).data,
  })
  const users = useQuery({
    queryKey: ['users', 'names'],
    queryFn: async () =>
      (await ok(api.GET('/api/v1/users', { params: { query: { limit: 1000 } } }))).data.map((u) => u.username).sort(),
  })
  const changed = (text: string) => {
    setMessage(text)
    void client.invalidateQueries({ queryKey: GROUPS })
  }
  const list = groups.data
  return (
    <Paper withBorder p="md" className="screen">
      <Title order={1} size="h3">
        Groups
      </Title>
      <ErrorMessage error={groups.error ?? users.error} />
      <Notice message={message} />
      {list && (
        <>
          <GroupList
            title="Built-in groups"
            list={list.filter((g) => g.builtIn)}
            users={users.data ?? []}
            onChanged={changed}
          />
          <GroupList
            title="Custom groups"
            list={list.filter((g) => !g.builtIn)}
            users={users.data ?? []}
            onChanged={changed}
          />
        </>
      )}
      <NewGroup onCreated={(g) => changed(`Created the group ${g.name}.`)} />
    </Paper>
  )
}
