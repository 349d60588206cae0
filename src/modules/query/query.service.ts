import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Database, type Db } from '../../kernel/db/database.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { AppError } from '../../kernel/errors.ts'
import { hasRole, requireEntityReadable, type Principal } from '../../kernel/http/principal.ts'
import {
  JAVA_TYPES,
  registry as platformRegistry,
  type EntityDef,
  type EntityRegistry,
} from '../../kernel/model/index.ts'
import { cachedTenantSettings, type TenantSettings } from '../../kernel/settings.ts'
import type { CustomFieldTemplate } from './filter-parser.ts'
import { combine, freeze, type Condition, type QueryAst, type Value } from './query.model.ts'
import { buildQuery, parameterError, type BuiltQuery, type QueryRequest } from './request-parser.ts'
import { compileCount, compileList, compileObject, type CompileOptions } from './sql-compiler.ts'

/** A page of a list, its data still the JSON text PostgreSQL wrote. */
export interface ListPage {
  /** undefined when a huge-volume entity was not counted (§2.9). */
  readonly total: number | undefined
  readonly limit: number
  readonly offset: number
  /** The filters as the client sent them, echoed in the envelope. */
  readonly filters: Record<string, unknown> | undefined
  /** A JSON array: entity objects, or one object per group for aggregations. */
  readonly dataJson: string
  /** Answer the bare array instead of the envelope (extractList). */
  readonly extractList: boolean
}

export interface ListResult {
  readonly total: number | undefined
  readonly limit: number
  readonly offset: number
  readonly filters: Record<string, unknown> | undefined
  readonly data: unknown[]
}

export interface EntityListOptions {
  readonly onlyBusinessEntities?: boolean
  readonly onlyHugeEntities?: boolean
  readonly withFullName?: boolean
}

export interface FieldMapping {
  readonly javaName: string
  readonly tableName: string
  readonly fields: readonly Record<string, string | boolean>[]
}

/** The resolved `{entity}` of a path: an entity, or one of its subclasses (restricted to its discriminator value). */
interface Target {
  readonly entity: EntityDef
  readonly name: string
  readonly fullName: string
  readonly restriction: Condition | undefined
}

/** The envelope of §2.4 around the database's JSON text: the rows are never parsed and re-encoded. */
export function listEnvelopeText(page: ListPage): string {
  if (page.extractList) return page.dataJson
  const parts: string[] = []
  if (page.total !== undefined) parts.push(`"total":${page.total}`)
  parts.push(`"limit":${page.limit}`, `"offset":${page.offset}`)
  if (page.filters !== undefined) parts.push(`"filters":${JSON.stringify(page.filters)}`)
  parts.push(`"data":${page.dataJson}`)
  return `{${parts.join(',')}}`
}

const canRead = (principal: Principal, entity: EntityDef) =>
  hasRole(principal, `${entity.resource}.view`) || hasRole(principal, 'queryUser')
const shorten = (text: string) => (text.length > 100 ? `${text.slice(0, 100)}…` : text)

export type QueryEngine = ReturnType<typeof createQueryEngine>

/**
 * The Query API engine: request → AST → one statement, run in a read-only transaction (with the tenant's statement
 * timeout on PostgreSQL), with the caller's row-level restriction. Saved report queries and the workbench use it too.
 */
export function createQueryEngine(deps: { database: Database; registry?: EntityRegistry }) {
  const registry = deps.registry ?? platformRegistry
  const database = deps.database

  function resolve(token: string): Target {
    const entity = registry.find(token)
    if (entity?.queryable) return { entity, name: entity.name, fullName: entity.fullName, restriction: undefined }
    // A subclass token (calendarPeriod) is its entity restricted to the subclass's discriminator value.
    const sub = registry.findSubclass(token)
    const inheritance = sub?.entity.inheritance
    if (sub?.entity.queryable && inheritance) {
      const wanted = token.trim().toLowerCase()
      const fullNameOf = (name: string) => `org.obol.model.${sub.entity.package}.${name}`
      const name = Object.keys(inheritance.subclasses).find(
        (n) => n.toLowerCase() === wanted || fullNameOf(n).toLowerCase() === wanted,
      )
      if (name) {
        const restriction: Condition = {
          kind: 'compare',
          target: { relations: [], field: inheritance.discriminator },
          op: '=',
          value: { kind: 'text', text: sub.value },
          ignoreCase: false,
        }
        return { entity: sub.entity, name, fullName: fullNameOf(name), restriction }
      }
    }
    throw new AppError('ENTITY_NOT_FOUND', `Entity ${shorten(token)} not found`)
  }

  /** Any Query API use needs queryUser or the view role of at least one entity's resource. */
  function requireSomeReadable(principal: Principal): void {
    if (!registry.queryable().some((entity) => canRead(principal, entity))) {
      throw new AppError('FORBIDDEN', 'The Query API needs the role queryUser or the view role of an entity')
    }
  }

  function authorize(principal: Principal, token: string): Target {
    const target = resolve(token)
    requireEntityReadable(principal, target.entity)
    return target
  }

  /** Every query runs read-only; PGlite cannot interrupt a statement, so the timeout is PostgreSQL's only. */
  async function readOnly<T>(work: (tx: Db, settings: TenantSettings) => Promise<T>): Promise<T> {
    const settings = await cachedTenantSettings(database.db)
    // On a server: a read-only pool with the timeout set per session, so a query is one round trip.
    const readDb = database.readOnly(settings.queryStatementTimeoutMs)
    if (readDb) return work(readDb, settings)
    return database.db.transaction(async (tx) => work(tx, settings), { accessMode: 'read only' })
  }

  async function customFieldTemplates(
    tx: Db,
    request: QueryRequest,
  ): Promise<Map<string, Map<string, CustomFieldTemplate>>> {
    const byEntity = new Map<string, Map<string, CustomFieldTemplate>>()
    if (!request.filters || !JSON.stringify(request.filters).includes('cfValues')) return byEntity
    const templates = await rows<CustomFieldTemplate>(
      tx,
      sql`select code, applies_to as "appliesTo", field_type as "fieldType", storage_type as "storageType" from custom_field_template`,
    )
    for (const template of templates) {
      const codes = byEntity.get(template.appliesTo) ?? new Map<string, CustomFieldTemplate>()
      byEntity.set(template.appliesTo, codes.set(template.code, template))
    }
    return byEntity
  }

  async function prepare(
    tx: Db,
    settings: TenantSettings,
    principal: Principal,
    target: Target,
    request: QueryRequest,
  ): Promise<BuiltQuery> {
    const templates = await customFieldTemplates(tx, request)
    return buildQuery(target.entity, request, {
      registry,
      allowSql: hasRole(principal, 'queryExpert'),
      customFields: (entity) => templates.get(entity.name) ?? new Map(),
      defaultLimit: settings.defaultListLimit,
      restriction: target.restriction,
    })
  }

  function compileOptions(principal: Principal, settings: TenantSettings): CompileOptions {
    return {
      timeZone: settings.timeZone,
      sellerCodes: principal.sellerCodes,
      viewer: { username: principal.username, groups: principal.groups, roles: principal.roles },
    }
  }

  /** Runs a statement; with raw SQL filters, a database error is the client's SQL, answered 400 without its text. */
  async function run<T>(tx: Db, statement: SQL, usesSql: boolean): Promise<T | undefined> {
    try {
      return await one<T>(tx, statement)
    } catch (error) {
      const code = pgErrorOf(error)?.code
      if (usesSql && code && code !== '57014') {
        throw new AppError('INVALID_FILTER', `filters: the SQL filter could not be run (SQLSTATE ${code})`)
      }
      throw error
    }
  }

  const inList = (names: readonly string[], entity: EntityDef) =>
    names.some((n) => registry.find(n)?.name === entity.name)

  async function listPage(
    principal: Principal,
    target: Target,
    tx: Db,
    settings: TenantSettings,
    built: BuiltQuery,
    request: QueryRequest,
  ): Promise<ListPage> {
    const count = request.forceCount === true || !inList(settings.hugeVolumeEntities, target.entity)
    const statement = compileList(registry, built.ast, { ...compileOptions(principal, settings), count })
    const found = await run<{ total: string | null; data: string }>(tx, statement, built.usesSql)
    return {
      total: found?.total === null || found?.total === undefined ? undefined : Number(found.total),
      limit: built.ast.limit,
      offset: built.ast.offset,
      filters: request.filters,
      dataJson: found?.data ?? '[]',
      extractList: request.extractList ?? inList(settings.extractListEntities, target.entity),
    }
  }

  /** A list page (§2.4) with its rows as the database's JSON text. */
  async function list(principal: Principal, entityToken: string, request: QueryRequest): Promise<ListPage> {
    const target = authorize(principal, entityToken)
    return readOnly(async (tx, settings) => {
      const built = await prepare(tx, settings, principal, target, request)
      return listPage(principal, target, tx, settings, built, request)
    })
  }

  return {
    registry,
    list,

    /** As `list`, with parsed rows: what saved report executions use. */
    async runList(principal: Principal, entityToken: string, request: QueryRequest): Promise<ListResult> {
      const page = await list(principal, entityToken, request)
      return {
        total: page.total,
        limit: page.limit,
        offset: page.offset,
        filters: page.filters,
        data: JSON.parse(page.dataJson) as unknown[],
      }
    },

    /**
     * Checks a request against the registry without running it (saved report queries validate on write).
     * SQL keys are accepted: whoever runs the query later needs queryExpert for them.
     */
    async validate(entityToken: string, request: QueryRequest): Promise<QueryAst> {
      const target = resolve(entityToken)
      return readOnly(async (tx, settings) => {
        const templates = await customFieldTemplates(tx, request)
        return buildQuery(target.entity, request, {
          registry,
          allowSql: true,
          customFields: (entity) => templates.get(entity.name) ?? new Map(),
          defaultLimit: settings.defaultListLimit,
          restriction: target.restriction,
        }).ast
      })
    },

    /** Runs an AST built elsewhere (the Deep workbench), with the caller's row-level restriction. */
    async runAst(
      principal: Principal,
      ast: QueryAst,
      options: { count: boolean; usesSql?: boolean },
    ): Promise<ListResult> {
      const target = authorize(principal, ast.entity)
      return readOnly(async (tx, settings) => {
        const built: BuiltQuery = { ast: freeze(ast), usesSql: options.usesSql ?? false }
        const page = await listPage(principal, target, tx, settings, built, {
          forceCount: options.count,
          extractList: false,
        })
        return {
          total: page.total,
          limit: page.limit,
          offset: page.offset,
          filters: undefined,
          data: JSON.parse(page.dataJson) as unknown[],
        }
      })
    },

    async count(principal: Principal, entityToken: string, request: QueryRequest): Promise<{ total: number }> {
      const target = authorize(principal, entityToken)
      return readOnly(async (tx, settings) => {
        const built = await prepare(tx, settings, principal, target, request)
        const found = await run<{ total: string }>(
          tx,
          compileCount(registry, built.ast, compileOptions(principal, settings)),
          built.usesSql,
        )
        return { total: Number(found?.total ?? 0) }
      })
    },

    /** One entity as JSON text; 404 when it does not exist or the caller may not see it. */
    async get(principal: Principal, entityToken: string, id: string, request: QueryRequest): Promise<string> {
      const target = authorize(principal, entityToken)
      const idField = target.entity.fields.get('id')
      if (!idField) throw new AppError('NOT_FOUND', `entity ${shorten(entityToken)} has no id`)
      let value: Value
      if (idField.type === 'long' || idField.type === 'integer') {
        if (!/^\d{1,18}$/.test(id)) throw parameterError('id', `expected a numeric id, got ${shorten(id)}`)
        value = { kind: 'number', text: String(BigInt(id)) }
      } else value = { kind: 'text', text: id }
      return readOnly(async (tx, settings) => {
        const built = await prepare(tx, settings, principal, target, request)
        if (built.ast.select.kind !== 'entities')
          throw parameterError('fields', 'aggregations are not available on get by id')
        const byId: Condition = {
          kind: 'compare',
          target: { relations: [], field: 'id' },
          op: '=',
          value,
          ignoreCase: false,
        }
        const ast: QueryAst = { ...built.ast, where: combine('and', [built.ast.where, byId]) }
        const found = await run<{ data: string }>(
          tx,
          compileObject(registry, ast, compileOptions(principal, settings)),
          built.usesSql,
        )
        if (!found) throw new AppError('NOT_FOUND', `entity ${shorten(entityToken)} with id ${shorten(id)} not found`)
        return found.data
      })
    },

    /**
     * The caller may use the Query API on this entity (or, without one, on some entity). Routes that only answer
     * 405 still authenticate and authorize first, like every other route.
     */
    assertCanQuery(principal: Principal, entityToken: string | undefined): void {
      if (entityToken !== undefined && (registry.find(entityToken)?.queryable || registry.findSubclass(entityToken))) {
        authorize(principal, entityToken)
        return
      }
      requireSomeReadable(principal)
    },

    /** The entity names the caller may query (§2.4 "Entity names list"), subclasses included. */
    entities(principal: Principal, options: EntityListOptions) {
      requireSomeReadable(principal)
      const found: { name: string; fullName: string }[] = []
      for (const entity of registry.queryable()) {
        if (!canRead(principal, entity)) continue
        if (options.onlyBusinessEntities && !entity.business) continue
        if (options.onlyHugeEntities && !entity.huge) continue
        found.push({ name: entity.name, fullName: entity.fullName })
        for (const sub of Object.keys(entity.inheritance?.subclasses ?? {})) {
          found.push({ name: sub, fullName: `org.obol.model.${entity.package}.${sub}` })
        }
      }
      found.sort((x, y) => x.name.localeCompare(y.name))
      return { entities: options.withFullName ? found : found.map((e) => e.name) }
    },

    /** §2.4 "Entity field mapping": Java-style names for client compatibility (DECISIONS). */
    fieldMapping(principal: Principal, entityToken: string): FieldMapping {
      const target = authorize(principal, entityToken)
      const entity = target.entity
      const fields: Record<string, string | boolean>[] = []
      for (const field of entity.fields.values()) {
        fields.push({
          javaField: field.name,
          javaType: JAVA_TYPES[field.type],
          columnName: field.column,
          ...(field.nullable ? {} : { nullable: false }),
        })
      }
      for (const relation of entity.relations.values()) {
        const related = registry.get(relation.target)
        if (!related.queryable) continue
        if (relation.kind === 'manyToOne') {
          fields.push({
            javaField: relation.name,
            javaType: related.fullName,
            columnName: relation.column!,
            ...(relation.nullable ? {} : { nullable: false }),
            isFK: true,
            isAssociation: true,
          })
        } else fields.push({ javaField: relation.name, javaType: 'java.util.List', isAssociation: true })
      }
      return { javaName: target.fullName, tableName: entity.tableName, fields }
    },
  }
}
