import { getTableColumns, getTableName, type Column } from 'drizzle-orm'
import type { Caller } from '../caller.ts'
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core'
import type { SQL } from 'drizzle-orm'

/** The full name of an entity or of one of its subclasses (`org.obol.model.<package>.<Name>`), the one place it is spelt. */
export function entityFullName(entityPackage: string, name: string): string {
  return `org.obol.model.${entityPackage}.${name}`
}

export type FieldType =
  'string' | 'integer' | 'long' | 'decimal' | 'boolean' | 'date' | 'instant' | 'json' | 'stringList'

export interface FieldDef {
  /** Wire name (camelCase), also the Query API field name. */
  readonly name: string
  readonly column: string
  readonly type: FieldType
  readonly nullable: boolean
  readonly hasDefault: boolean
  /** Written only by the platform (id, audit columns, discriminators, derived state). */
  readonly readOnly: boolean
  readonly enumValues: readonly string[] | undefined
}

export interface RelationDef {
  readonly name: string
  readonly kind: 'manyToOne' | 'oneToMany'
  /** Simple name of the target entity. */
  readonly target: string
  /** manyToOne: the foreign key column on this entity's table. */
  readonly column: string | undefined
  /** oneToMany: the manyToOne relation on the target that points back here. */
  readonly mappedBy: string | undefined
  readonly nullable: boolean
  readonly readOnly: boolean
}

export interface Inheritance {
  /** Field holding the discriminator value. */
  readonly discriminator: string
  /** Subclass simple name → discriminator value. */
  readonly subclasses: Readonly<Record<string, string>>
}

/**
 * A condition on the rows of an entity (as `alias`) that a viewer may read, applied by the query layer wherever
 * the entity appears (root rows, nested objects, counts, aggregations); undefined means every row.
 */
export type RowPolicy = (alias: SQL, viewer: Pick<Caller, 'username' | 'groups' | 'roles'>) => SQL | undefined

export interface EntityDef {
  /** Simple class name, e.g. BillingAccount. */
  readonly name: string
  /** camelCase token, e.g. billingAccount. */
  readonly token: string
  /** org.obol.model.<package>.<Name> */
  readonly fullName: string
  readonly package: string
  readonly table: PgTable
  /** PostgreSQL schema: `public`, or `obol_secrets` for tables holding secrets. */
  readonly schema: string
  readonly tableName: string
  readonly fields: ReadonlyMap<string, FieldDef>
  readonly relations: ReadonlyMap<string, RelationDef>
  readonly business: boolean
  readonly huge: boolean
  /** Role resource guarding reads: `<domain>.<resource>` (the view role is `<resource>.view`). */
  readonly resource: string
  readonly customFields: boolean
  /** False for tables holding secrets: they do not exist for the query layer. */
  readonly queryable: boolean
  /**
   * The platform's own records (users, groups, roles, clients, jobs, saved reports, the workbench's audit and runs,
   * tenant settings), not billing data: readable through the Query API under their own permission, never by Expert
   * SQL, whose role has SELECT on the other queryable tables only.
   */
  readonly platform: boolean
  /** Dotted relation path to the owning seller ('' for the seller itself); business entities only. */
  readonly sellerPath: string | undefined
  readonly inheritance: Inheritance | undefined
  /** The business key, when the entity has one. */
  readonly codeField: string | undefined
  /** Other names clients know the entity by (Opencell's class names): accepted as tokens, never listed. */
  readonly aliases: readonly string[]
  readonly rowPolicy: RowPolicy | undefined
}

type ManyToOneSpec = { kind: 'manyToOne'; target: string; column: string; readOnly?: boolean }
type OneToManySpec = { kind: 'oneToMany'; target: string; mappedBy: string }

export const manyToOne = (target: string, column: string, options: { readOnly?: boolean } = {}): ManyToOneSpec => ({
  kind: 'manyToOne',
  target,
  column,
  ...options,
})
export const oneToMany = (target: string, mappedBy: string): OneToManySpec => ({ kind: 'oneToMany', target, mappedBy })

export interface EntitySpec {
  name: string
  package: string
  table: PgTable
  resource: string
  business?: boolean
  huge?: boolean
  customFields?: boolean
  queryable?: boolean
  platform?: boolean
  sellerPath?: string
  inheritance?: Inheritance
  /** manyToOne relations name their FK property (the Drizzle key); the FK property is then not a plain field. */
  relations?: Record<string, ManyToOneSpec | OneToManySpec>
  /** Per-field refinements: enum values, read-only. */
  fields?: Record<string, { enum?: readonly string[]; readOnly?: boolean }>
  aliases?: readonly string[]
  rowPolicy?: RowPolicy
}

const ALWAYS_READ_ONLY = new Set(['id', 'created', 'updated', 'creator', 'updater'])

function fieldType(column: Column): FieldType {
  switch (column.columnType) {
    case 'PgText':
    case 'PgVarchar':
    case 'PgUUID':
      return 'string'
    case 'PgInteger':
    case 'PgSmallInt':
      return 'integer'
    case 'PgBigInt53':
    case 'PgBigInt64':
      return 'long'
    case 'PgNumeric':
      return 'decimal'
    case 'PgBoolean':
      return 'boolean'
    case 'PgDateString':
    case 'PgDate':
      return 'date'
    case 'PgTimestamp':
    case 'PgTimestampString':
      return 'instant'
    case 'PgJsonb':
    case 'PgJson':
      return 'json'
    case 'PgArray':
      return 'stringList'
    default:
      throw new Error(`registry: column ${column.name} has unsupported type ${column.columnType}`)
  }
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1)

/** Builds an entity declaration from its Drizzle table and what the query layer needs on top. */
export function defineEntity(spec: EntitySpec): EntityDef {
  const columns = getTableColumns(spec.table) as Record<string, Column>
  const relationSpecs = spec.relations ?? {}
  const fkProperties = new Map<string, string>()
  for (const [name, rel] of Object.entries(relationSpecs)) {
    if (rel.kind === 'manyToOne') fkProperties.set(rel.column, name)
  }
  const fields = new Map<string, FieldDef>()
  const relations = new Map<string, RelationDef>()
  for (const [key, column] of Object.entries(columns)) {
    const relationName = fkProperties.get(key)
    if (relationName) {
      const rel = relationSpecs[relationName] as ManyToOneSpec
      relations.set(relationName, {
        name: relationName,
        kind: 'manyToOne',
        target: rel.target,
        column: column.name,
        mappedBy: undefined,
        nullable: !column.notNull,
        readOnly: rel.readOnly ?? false,
      })
      continue
    }
    const refinement = spec.fields?.[key]
    fields.set(key, {
      name: key,
      column: column.name,
      type: fieldType(column),
      nullable: !column.notNull,
      hasDefault: column.hasDefault,
      readOnly: ALWAYS_READ_ONLY.has(key) || (refinement?.readOnly ?? false),
      enumValues: refinement?.enum,
    })
  }
  for (const [fk, name] of fkProperties) {
    if (!(fk in columns)) throw new Error(`registry: ${spec.name}.${name} names unknown column property ${fk}`)
  }
  for (const [name, rel] of Object.entries(relationSpecs)) {
    if (rel.kind === 'oneToMany') {
      relations.set(name, {
        name,
        kind: 'oneToMany',
        target: rel.target,
        column: undefined,
        mappedBy: rel.mappedBy,
        nullable: true,
        readOnly: true,
      })
    }
  }
  for (const key of Object.keys(spec.fields ?? {})) {
    if (!fields.has(key)) throw new Error(`registry: ${spec.name} refines unknown field ${key}`)
  }
  return {
    name: spec.name,
    token: lowerFirst(spec.name),
    fullName: entityFullName(spec.package, spec.name),
    package: spec.package,
    table: spec.table,
    schema: getTableConfig(spec.table).schema ?? 'public',
    tableName: getTableName(spec.table),
    fields,
    relations,
    business: spec.business ?? false,
    huge: spec.huge ?? false,
    resource: spec.resource,
    customFields: spec.customFields ?? false,
    queryable: spec.queryable ?? true,
    platform: spec.platform ?? false,
    sellerPath: spec.sellerPath,
    inheritance: spec.inheritance,
    codeField: fields.has('code') ? 'code' : undefined,
    aliases: spec.aliases ?? [],
    rowPolicy: spec.rowPolicy,
  }
}

/** All entities of the platform, looked up by any spelling the API accepts. */
export class EntityRegistry {
  private readonly byKey = new Map<string, EntityDef>()
  private readonly subclassOf = new Map<string, { entity: EntityDef; value: string }>()
  readonly entities: readonly EntityDef[]

  constructor(entities: readonly EntityDef[]) {
    this.entities = entities
    for (const entity of entities) {
      for (const key of [entity.name, entity.fullName, ...entity.aliases]) {
        const k = key.toLowerCase()
        if (this.byKey.has(k)) throw new Error(`registry: entity ${key} declared twice`)
        this.byKey.set(k, entity)
      }
      for (const [sub, value] of Object.entries(entity.inheritance?.subclasses ?? {})) {
        this.subclassOf.set(sub.toLowerCase(), { entity, value })
        this.subclassOf.set(entityFullName(entity.package, sub).toLowerCase(), { entity, value })
      }
    }
    this.validate()
  }

  /** Resolves `billingAccount`, `BillingAccount`, `billingaccount` or the full name. */
  find(token: string): EntityDef | undefined {
    return this.byKey.get(token.trim().toLowerCase())
  }

  get(name: string): EntityDef {
    const entity = this.find(name)
    if (!entity) throw new Error(`registry: unknown entity ${name}`)
    return entity
  }

  /** The entity and discriminator value a subclass name stands for. */
  findSubclass(name: string): { entity: EntityDef; value: string } | undefined {
    return this.subclassOf.get(name.trim().toLowerCase())
  }

  queryable(): EntityDef[] {
    return this.entities.filter((e) => e.queryable)
  }

  /** The entities Expert SQL may read: queryable, and billing data rather than the platform's own records. */
  expertReadable(): EntityDef[] {
    return this.entities.filter((e) => e.queryable && !e.platform)
  }

  private validate(): void {
    for (const entity of this.entities) {
      for (const rel of entity.relations.values()) {
        const target = this.find(rel.target)
        if (!target) throw new Error(`registry: ${entity.name}.${rel.name} targets unknown entity ${rel.target}`)
        if (rel.kind === 'oneToMany') {
          const back = target.relations.get(rel.mappedBy ?? '')
          if (back?.kind !== 'manyToOne' || back.target !== entity.name) {
            throw new Error(
              `registry: ${entity.name}.${rel.name} mappedBy ${rel.mappedBy ?? ''} is not a relation back`,
            )
          }
        }
      }
      if (entity.business && entity.sellerPath === undefined) {
        throw new Error(`registry: business entity ${entity.name} declares no seller path`)
      }
      if (entity.schema !== 'public' && entity.queryable) {
        throw new Error(`registry: ${entity.name} lives in schema ${entity.schema} and must be marked not queryable`)
      }
      // Expert SQL reads whole tables: an entity whose rows are filtered per reader must be out of its reach.
      if (entity.rowPolicy && !entity.platform) {
        throw new Error(
          `registry: ${entity.name} has a row policy and must be marked platform (Expert SQL cannot apply it)`,
        )
      }
      if (entity.inheritance && !entity.fields.has(entity.inheritance.discriminator)) {
        throw new Error(`registry: ${entity.name} discriminator ${entity.inheritance.discriminator} is not a field`)
      }
    }
  }
}

export const JAVA_TYPES: Record<FieldType, string> = {
  string: 'java.lang.String',
  integer: 'java.lang.Integer',
  long: 'java.lang.Long',
  decimal: 'java.math.BigDecimal',
  boolean: 'java.lang.Boolean',
  date: 'java.time.LocalDate',
  instant: 'java.time.Instant',
  json: 'java.util.Map',
  stringList: 'java.util.List',
}
