import { getTableColumns, type Column } from 'drizzle-orm'
import { JAVA_TYPES, type EntityDef, type EntityRegistry, type FieldType } from '../../kernel/model/index.ts'

/**
 * Opencell's description of an entity (`GET /api/rest/v2/generic/entities/{entity}`): one key per field and
 * relation, sorted by name, each `{ fullQualifiedTypeName, shortTypeName, isEntity: "true" | "false" }` as
 * Opencell writes them, plus Obol's `type`; relations carry the fields of their target in `entityDetails`, down to
 * `depth` levels.
 */
export interface OpencellField {
  readonly fullQualifiedTypeName: string
  readonly shortTypeName: string
  readonly isEntity: 'true' | 'false'
  /** The Query API field type (string, decimal, …), or manyToOne / oneToMany for a relation. */
  readonly type: FieldType | 'manyToOne' | 'oneToMany'
  /** A relation's target entity. */
  readonly entityName?: string
  readonly entityDetails?: OpencellFieldMap
}

export type OpencellFieldMap = { readonly [name: string]: OpencellField }

/** The deepest description answered: deeper requests get this many levels (the MCP client offers up to 5). */
export const MAX_DESCRIBE_DEPTH = 3
/** Opencell's default depth. */
export const DEFAULT_DESCRIBE_DEPTH = 2

export interface DescribeOptions {
  readonly depth: number
  /** Keeps the fields whose name contains it (any case), and the relations leading to one. */
  readonly filter: string | undefined
  /** Whether the caller may read an entity: only readable targets are described further. */
  readonly readable: (entity: EntityDef) => boolean
}

const INTERFACES = new Set(['java.util.Map', 'java.util.List'])
const javaType = (name: string) => ({
  fullQualifiedTypeName: `${INTERFACES.has(name) ? 'interface' : 'class'} ${name}`,
  shortTypeName: name.slice(name.lastIndexOf('.') + 1),
})

export function opencellFieldMap(
  registry: EntityRegistry,
  entity: EntityDef,
  options: DescribeOptions,
): OpencellFieldMap {
  const depth = Math.min(Math.max(options.depth, 0), MAX_DESCRIBE_DEPTH)
  const filter = options.filter?.trim().toLowerCase() || undefined
  return describe(registry, entity, { ...options, depth, filter }, 0, undefined)
}

function describe(
  registry: EntityRegistry,
  entity: EntityDef,
  options: DescribeOptions,
  level: number,
  parent: string | undefined,
): OpencellFieldMap {
  const matches = (name: string) => options.filter === undefined || name.toLowerCase().includes(options.filter)
  const entries: [string, OpencellField][] = []
  for (const field of entity.fields.values()) {
    if (!matches(field.name)) continue
    entries.push([field.name, { ...javaType(JAVA_TYPES[field.type]), isEntity: 'false', type: field.type }])
  }
  for (const relation of entity.relations.values()) {
    const target = registry.find(relation.target)
    if (!target?.queryable) continue
    const named = matches(relation.name)
    let details: OpencellFieldMap | undefined
    // Like Opencell, a relation back to the entity just described is not described again.
    if (level < options.depth && options.readable(target) && target.name !== parent) {
      details = describe(registry, target, named ? { ...options, filter: undefined } : options, level + 1, entity.name)
    }
    const hasDetails = details !== undefined && Object.keys(details).length > 0
    if (!named && !hasDetails) continue
    entries.push([
      relation.name,
      {
        ...(relation.kind === 'manyToOne'
          ? { fullQualifiedTypeName: `class ${target.fullName}`, shortTypeName: target.name }
          : javaType('java.util.List')),
        isEntity: 'true',
        type: relation.kind,
        entityName: target.name,
        ...(hasDetails ? { entityDetails: details } : {}),
      },
    ])
  }
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(entries)
}

const AUDIT_FIELDS = new Set(['creator', 'updater'])

/**
 * The fields `fullTextFilter` searches: the entity's own free-text columns (text or varchar; not enumerations,
 * identifiers, lists, nor who created or last updated the row). Huge entities have a trigram index on each (migrations/0015_opencell.sql).
 */
export function fullTextFields(entity: EntityDef): string[] {
  const columns = Object.values(getTableColumns(entity.table) as Record<string, Column>)
  const textColumns = new Set(
    columns.filter((c) => c.columnType === 'PgText' || c.columnType === 'PgVarchar').map((c) => c.name),
  )
  return [...entity.fields.values()]
    .filter(
      (f) =>
        f.type === 'string' && f.enumValues === undefined && textColumns.has(f.column) && !AUDIT_FIELDS.has(f.name),
    )
    .map((f) => f.name)
}

/** The words of a `fullTextFilter`: split on white space, each matched case-insensitively anywhere in a field. */
export function fullTextWords(text: string): string[] {
  return text
    .split(/\s+/)
    .map((w) => w.trim())
    .filter((w) => w.length > 0)
}
