import { useEffect, useMemo, useState, type SyntheticEvent } from 'react'
import { api, ok, type Got } from '../client.ts'
import { ErrorMessage, Grid, Notice, type Row } from '../components.tsx'

type SavedQuery = Got<'/api/v1/reportQueries/{code}'>
const describeEntity = (entity: string) =>
  ok(api.GET('/api/v1/workbench/schema/entities/{entity}', { params: { path: { entity } } }))
/** The entities a report is written on: the platform's own records (clients, audits, settings) left out. */
const reportEntities = async (): Promise<string[]> =>
  (await ok(api.GET('/api/v1/query/entities', { params: { query: { withoutPlatformEntities: true } } })))
    .entities as string[]

/** Aggregations the Query API reads in genericFields: `COUNT(id)`, `SUM(amount)`… */
const FUNCTIONS = ['', 'COUNT', 'SUM', 'AVG', 'MIN', 'MAX'] as const
type Fn = (typeof FUNCTIONS)[number]

/** Filter conditions as the Query API writes them in a key (`fromRange amount`); equality is the bare path. */
const OPERATORS = [
  { key: '', label: 'equals (* for any text)' },
  { key: 'ne', label: 'is not' },
  { key: 'fromRange', label: 'at least' },
  { key: 'toRangeInclusive', label: 'at most' },
  { key: 'toRange', label: 'below' },
  { key: 'inList', label: 'one of (comma list)' },
] as const
type Operator = (typeof OPERATORS)[number]['key']

interface FieldRow {
  id: number
  fn: Fn
  path: string
}
interface FilterRow {
  id: number
  path: string
  operator: Operator
  value: string
}
interface SortRow {
  id: number
  path: string
  descending: boolean
}
export interface Builder {
  code: string
  description: string
  entity: string
  visibility: 'PUBLIC' | 'PROTECTED' | 'PRIVATE'
  tags: string
  fields: FieldRow[]
  filters: FilterRow[]
  sorts: SortRow[]
  grouped: boolean
}

let nextId = 1
const newId = () => nextId++
const EMPTY: Builder = {
  code: '',
  description: '',
  entity: '',
  visibility: 'PRIVATE',
  tags: '',
  fields: [],
  filters: [],
  sorts: [],
  grouped: false,
}
const fieldText = (f: FieldRow) => (f.fn ? `${f.fn}(${f.path})` : f.path)

/**
 * The advancedQuery of the builder, in the Query API's POST names: genericFields, filters (one key per condition),
 * sortBy and sortOrder as comma lists, and groupBy (the fields without a function) when rows are grouped.
 */
export function advancedQueryOf(b: Builder): Record<string, unknown> {
  const query: Record<string, unknown> = {}
  const fields = b.fields.filter((f) => f.path)
  if (fields.length > 0) query.genericFields = fields.map(fieldText)
  const filters = b.filters.filter((f) => f.path)
  if (filters.length > 0)
    query.filters = Object.fromEntries(
      filters.map((f) => [
        f.operator ? `${f.operator} ${f.path}` : f.path,
        f.operator === 'inList'
          ? f.value
              .split(',')
              .map((v) => v.trim())
              .filter(Boolean)
          : f.value,
      ]),
    )
  const sorts = b.sorts.filter((s) => s.path)
  if (sorts.length > 0) {
    query.sortBy = sorts.map((s) => s.path).join(',')
    query.sortOrder = sorts.map((s) => (s.descending ? 'DESCENDING' : 'ASCENDING')).join(',')
  }
  if (b.grouped) {
    const keys = fields.filter((f) => !f.fn).map((f) => f.path)
    if (keys.length > 0) query.groupBy = keys
  }
  return query
}

/** A saved VISUAL query back in the builder: what it does not know (nested entities, having…) is kept aside. */
export function builderOf(q: SavedQuery): Builder {
  const a = q.advancedQuery ?? {}
  const list = (v: unknown): string[] =>
    Array.isArray(v)
      ? v.map(String)
      : typeof v === 'string'
        ? v
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : []
  const fields = list(a.genericFields).map((text) => {
    const m = /^(COUNT|SUM|AVG|MIN|MAX)\((.+)\)$/i.exec(text)
    return { id: newId(), fn: (m ? m[1]!.toUpperCase() : '') as Fn, path: m ? m[2]! : text }
  })
  const filters = Object.entries((a.filters ?? {}) as Record<string, unknown>).map(([key, value]) => {
    const [first, second] = key.split(/\s+/)
    const operator = (second ? first : '') as Operator
    return {
      id: newId(),
      operator,
      path: second ?? first ?? '',
      value: Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : JSON.stringify(value),
    }
  })
  const orders = list(a.sortOrder)
  const sorts = list(a.sortBy).map((path, i) => ({ id: newId(), path, descending: /^DESC/i.test(orders[i] ?? '') }))
  return {
    code: q.code,
    description: q.description ?? '',
    entity: q.targetEntity ?? '',
    visibility: q.visibility,
    tags: (q.tags ?? []).join(', '),
    fields,
    filters,
    sorts,
    grouped: list(a.groupBy).length > 0,
  }
}

/** The paths a person may pick: the entity's own fields, then those of the entities its many-to-one fields lead to. */
async function pathsOf(entity: string): Promise<string[]> {
  const description = await describeEntity(entity)
  const own = description.fields.filter((f) => !f.relation && f.type !== 'json').map((f) => f.name)
  const related = await Promise.all(
    description.fields
      .filter((f) => f.relation?.kind === 'manyToOne')
      .map(async (f) => {
        const target = await describeEntity(f.relation!.target)
        return target.fields.filter((t) => !t.relation && t.type !== 'json').map((t) => `${f.name}.${t.name}`)
      }),
  )
  return [...own, ...related.flat()]
}

function PathSelect({
  label,
  paths,
  value,
  onChange,
}: {
  label: string
  paths: string[]
  value: string
  onChange: (path: string) => void
}) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">Choose a field…</option>
      {[...new Set([...(value ? [value] : []), ...paths])].map((p) => (
        <option key={p}>{p}</option>
      ))}
    </select>
  )
}

/**
 * The visual builder of a saved report query: an entity, its fields (with a function each, or none), filters, sort
 * and grouping, producing the advancedQuery shown beside it; its rows previewed through the Query API, then saved.
 */
export function ReportBuilder({
  editing,
  onSaved,
  onClose,
}: {
  editing: SavedQuery | undefined
  onSaved: (code: string) => void
  onClose: () => void
}) {
  const [b, setB] = useState<Builder>(() => (editing ? builderOf(editing) : EMPTY))
  const [entities, setEntities] = useState<string[]>([])
  const [paths, setPaths] = useState<string[]>([])
  const [rows, setRows] = useState<Row[]>()
  const [error, setError] = useState<unknown>()
  const [message, setMessage] = useState<string>()
  const set = (patch: Partial<Builder>) => setB((current) => ({ ...current, ...patch }))
  const query = useMemo(() => advancedQueryOf(b), [b])

  useEffect(() => void reportEntities().then(setEntities, setError), [])
  useEffect(() => {
    setPaths([])
    if (b.entity) pathsOf(b.entity).then(setPaths, setError)
  }, [b.entity])

  const change = <K extends 'fields' | 'filters' | 'sorts'>(key: K, id: number, patch: Partial<Builder[K][number]>) =>
    setB((current) => ({
      ...current,
      [key]: (current[key] as { id: number }[]).map((x) => (x.id === id ? { ...x, ...patch } : x)),
    }))
  const remove = (key: 'fields' | 'filters' | 'sorts', id: number) =>
    setB((current) => ({ ...current, [key]: (current[key] as { id: number }[]).filter((x) => x.id !== id) }))

  const preview = () => {
    setError(undefined)
    setMessage(undefined)
    ok(
      api.POST('/api/v1/query/{entity}', {
        params: { path: { entity: b.entity } },
        body: { ...query, limit: 100 },
      }),
    ).then(
      (answer) => setRows((answer as { data?: Row[] }).data ?? []),
      (e: unknown) => {
        // An old preview never stays under a new error.
        setRows(undefined)
        setError(e)
      },
    )
  }
  const save = (event: SyntheticEvent) => {
    event.preventDefault()
    setError(undefined)
    setMessage(undefined)
    const body = {
      code: b.code.trim(),
      description: b.description.trim() || null,
      targetEntity: b.entity,
      visibility: b.visibility,
      tags: b.tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      advancedQuery: query,
    }
    const saving = editing
      ? api.PUT('/api/v1/reportQueries/{code}', { params: { path: { code: editing.code } }, body })
      : api.POST('/api/v1/reportQueries', { body })
    ok(saving).then(() => {
      setMessage(`Saved ${body.code}.`)
      onSaved(body.code)
    }, setError)
  }

  return (
    <form className="builder" aria-label="Visual query builder" onSubmit={save}>
      <h2>{editing ? `Edit ${editing.code}` : 'New visual query'}</h2>
      <div className="toolbar">
        <label>
          Query code
          <input value={b.code} onChange={(e) => set({ code: e.target.value })} required disabled={!!editing} />
        </label>
        <label className="grow">
          Query description
          <input value={b.description} onChange={(e) => set({ description: e.target.value })} />
        </label>
        <label>
          Visibility
          <select value={b.visibility} onChange={(e) => set({ visibility: e.target.value as Builder['visibility'] })}>
            <option value="PRIVATE">PRIVATE: only me</option>
            <option value="PROTECTED">PROTECTED: my groups</option>
            <option value="PUBLIC">PUBLIC: everyone</option>
          </select>
        </label>
        <label>
          Tags (comma list)
          <input value={b.tags} onChange={(e) => set({ tags: e.target.value })} />
        </label>
      </div>
      <div className="toolbar">
        <label>
          Entity
          <select
            value={b.entity}
            required
            onChange={(e) => set({ entity: e.target.value, fields: [], filters: [], sorts: [], grouped: false })}
          >
            <option value="">Choose an entity…</option>
            {entities.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
      </div>
      {b.entity && (
        <div className="builder-parts">
          <fieldset>
            <legend>Fields</legend>
            {b.fields.map((f, i) => (
              <div className="toolbar tight" key={f.id}>
                <select
                  aria-label={`Field ${i + 1} function`}
                  value={f.fn}
                  onChange={(e) => change('fields', f.id, { fn: e.target.value as Fn })}
                >
                  {FUNCTIONS.map((fn) => (
                    <option key={fn} value={fn}>
                      {fn || '(value)'}
                    </option>
                  ))}
                </select>
                <PathSelect
                  label={`Field ${i + 1}`}
                  paths={paths}
                  value={f.path}
                  onChange={(path) => change('fields', f.id, { path })}
                />
                <button type="button" aria-label={`Remove field ${i + 1}`} onClick={() => remove('fields', f.id)}>
                  ✕
                </button>
              </div>
            ))}
            <div>
              <button type="button" onClick={() => set({ fields: [...b.fields, { id: newId(), fn: '', path: '' }] })}>
                Add a field
              </button>
            </div>
            <label className="check plain">
              <input type="checkbox" checked={b.grouped} onChange={(e) => set({ grouped: e.target.checked })} />
              Group rows by the fields without a function
            </label>
          </fieldset>
          <fieldset>
            <legend>Filters (all must hold)</legend>
            {b.filters.map((f, i) => (
              <div className="toolbar tight" key={f.id}>
                <PathSelect
                  label={`Filter ${i + 1} field`}
                  paths={paths}
                  value={f.path}
                  onChange={(path) => change('filters', f.id, { path })}
                />
                <select
                  className="condition"
                  aria-label={`Filter ${i + 1} condition`}
                  value={f.operator}
                  onChange={(e) => change('filters', f.id, { operator: e.target.value as Operator })}
                >
                  {OPERATORS.map((o) => (
                    <option key={o.key} value={o.key}>
                      {o.label}
                    </option>
                  ))}
                </select>
                <input
                  aria-label={`Filter ${i + 1} value`}
                  value={f.value}
                  onChange={(e) => change('filters', f.id, { value: e.target.value })}
                />
                <button type="button" aria-label={`Remove filter ${i + 1}`} onClick={() => remove('filters', f.id)}>
                  ✕
                </button>
              </div>
            ))}
            <div>
              <button
                type="button"
                onClick={() => set({ filters: [...b.filters, { id: newId(), path: '', operator: '', value: '' }] })}
              >
                Add a filter
              </button>
            </div>
          </fieldset>
          <fieldset>
            <legend>Sort</legend>
            {b.sorts.map((s, i) => (
              <div className="toolbar tight" key={s.id}>
                <PathSelect
                  label={`Sort ${i + 1} field`}
                  paths={paths}
                  value={s.path}
                  onChange={(path) => change('sorts', s.id, { path })}
                />
                <select
                  aria-label={`Sort ${i + 1} order`}
                  value={s.descending ? 'DESCENDING' : 'ASCENDING'}
                  onChange={(e) => change('sorts', s.id, { descending: e.target.value === 'DESCENDING' })}
                >
                  <option value="ASCENDING">ascending</option>
                  <option value="DESCENDING">descending</option>
                </select>
                <button type="button" aria-label={`Remove sort ${i + 1}`} onClick={() => remove('sorts', s.id)}>
                  ✕
                </button>
              </div>
            ))}
            <div>
              <button
                type="button"
                onClick={() => set({ sorts: [...b.sorts, { id: newId(), path: '', descending: false }] })}
              >
                Add a sort
              </button>
            </div>
          </fieldset>
          <section className="advanced-query" aria-label="advancedQuery">
            <h3>advancedQuery</h3>
            <pre data-testid="advanced-query">{JSON.stringify(query, null, 2)}</pre>
          </section>
        </div>
      )}
      <Notice message={message} />
      <ErrorMessage error={error} />
      <div className="toolbar">
        <button type="button" onClick={preview} disabled={!b.entity}>
          Preview rows
        </button>
        <button type="submit" className="primary" disabled={!b.entity}>
          {editing ? 'Save changes' : 'Save query'}
        </button>
        <button type="button" onClick={onClose}>
          Close the builder
        </button>
      </div>
      {rows && <Grid rows={rows} />}
    </form>
  )
}
