import { sql } from 'drizzle-orm'
import { parseDatabaseJson } from '../../kernel/decimal-json.ts'
import { rows, type Database, type Reader, type TextStatement } from '../../kernel/db/database.ts'
import { AppError } from '../../kernel/errors.ts'
import { hasRole, type Principal } from '../../kernel/http/principal.ts'
import { registry as platformRegistry, type EntityDef, type EntityRegistry } from '../../kernel/model/index.ts'
import { cachedTenantSettings, type TenantSettings } from '../../kernel/settings.ts'
import { compileStatement, expansionError, hasNumericId, MAX_RESPONSE_CHARS } from './compile-statement.ts'
import { fieldMapping, opencellFields, readableEntities, type EntityListOptions } from './entity-catalogue.ts'
import {
  authorizedTarget,
  authorizeReached,
  requireSomeReadable,
  resolveTarget,
  shorten,
  type Target,
} from './entity-target.ts'
import { rawSqlHints, type CustomFieldTemplate } from './filter-parser.ts'
import { compactJson } from './json-text.ts'
import { freeze, type Condition, type QueryAst } from './query.model.ts'
import { queryFailure } from './query-failures.ts'
import { loadSqlParser, mayCarrySql } from './raw-sql.ts'
import { buildQuery, parameterError, type QueryRequest } from './request-parser.ts'
import { named, StatementCache, withId, type CompiledStatement } from './statement-cache.ts'

export type { EntityListOptions, FieldMapping } from './entity-catalogue.ts'

/** The caller as a reader: replicas serve them only once past their own last write. */
const readerOf = (principal: Principal): Reader => ({ subject: principal.subject })

/** A page of a list, its data still the JSON text PostgreSQL wrote. */
export interface ListPage {
  /** undefined when a huge-volume entity was not counted (entities in the tenant setting hugeVolumeEntities are counted only with forceCount). */
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

/**
 * The list envelope (`{ total, limit, offset, filters, data }`, or the bare data array with extractList) around the
 * database's JSON text: the rows are never parsed and re-encoded.
 */
export function listEnvelopeText(page: ListPage): string {
  if (page.extractList) return page.dataJson
  const parts: string[] = []
  if (page.total !== undefined) parts.push(`"total":${page.total}`)
  parts.push(`"limit":${page.limit}`, `"offset":${page.offset}`)
  if (page.filters !== undefined) parts.push(`"filters":${JSON.stringify(page.filters)}`)
  parts.push(`"data":${page.dataJson}`)
  return `{${parts.join(',')}}`
}

/**
 * Compiled statements kept per request shape. An entry holds its key (the request, at most MAX_CACHED_REQUEST_CHARS)
 * and its statement (at most MAX_CACHED_STATEMENT_CHARS): the cache stays under about 40 MB whatever clients send.
 */
const STATEMENT_CACHE_SIZE = 500
const MAX_CACHED_REQUEST_CHARS = 8192
const MAX_CACHED_STATEMENT_CHARS = 65_536

export type QueryEngine = ReturnType<typeof createQueryEngine>

/**
 * The Query API engine: request → AST → one statement, run in a read-only transaction (with the tenant's statement
 * timeout on PostgreSQL), with the caller's row-level restriction. Saved report queries and the workbench use it too.
 */
export function createQueryEngine(deps: { database: Database; registry?: EntityRegistry }) {
  const registry = deps.registry ?? platformRegistry
  const database = deps.database
  const cache = new StatementCache(STATEMENT_CACHE_SIZE)

  /**
   * What parsing the filters needs before it can run synchronously: PostgreSQL's parser when raw SQL may be
   * present, and the custom field templates, read per request (they change at runtime) when custom fields are.
   */
  async function customFieldTemplates(request: QueryRequest): Promise<Map<string, Map<string, CustomFieldTemplate>>> {
    const byEntity = new Map<string, Map<string, CustomFieldTemplate>>()
    const filtersText = request.filters ? JSON.stringify(request.filters) : ''
    if (mayCarrySql(filtersText)) await loadSqlParser()
    if (!filtersText.includes('cfValues')) return byEntity
    const templates = await rows<CustomFieldTemplate>(
      database.db,
      sql`select code, applies_to as "appliesTo", field_type as "fieldType", storage_type as "storageType", entity_clazz as "entityClazz" from custom_field_template`,
    )
    for (const template of templates) {
      const codes = byEntity.get(template.appliesTo) ?? new Map<string, CustomFieldTemplate>()
      byEntity.set(template.appliesTo, codes.set(template.code, template))
    }
    return byEntity
  }

  async function build(principal: Principal, target: Target, request: QueryRequest, settings: TenantSettings) {
    const templates = await customFieldTemplates(request)
    return buildQuery(target.entity, request, {
      registry,
      allowSql: hasRole(principal, 'queryExpert'),
      customFields: (entity) => templates.get(entity.name) ?? new Map(),
      defaultLimit: settings.defaultListLimit,
      restriction: target.restriction,
    })
  }

  function compileOptions(principal: Principal, settings: TenantSettings, trace?: { viewerUsed: boolean }) {
    return { timeZone: settings.timeZone, sellerCodes: principal.sellerCodes, viewer: principal, trace }
  }

  /**
   * The statement answering a request: from the cache when a request of the same shape (same parameters, same kind of
   * caller) was compiled before, else parsed, compiled and kept. A get by id is cached without its id. Requests that
   * filter on custom fields are compiled each time: their templates can change.
   */
  async function statementFor(
    kind: 'list' | 'count' | 'get',
    principal: Principal,
    target: Target,
    entityToken: string,
    request: QueryRequest,
    settings: TenantSettings,
    count: boolean,
  ): Promise<CompiledStatement> {
    const requestText = JSON.stringify(request)
    const cacheable = !requestText.includes('cfValues') && requestText.length <= MAX_CACHED_REQUEST_CHARS
    const key = [
      kind,
      entityToken,
      hasRole(principal, 'queryExpert') ? 'sql' : '',
      principal.sellerCodes === null ? '*' : JSON.stringify(principal.sellerCodes),
      settings.timeZone,
      settings.defaultListLimit,
      count ? 'count' : '',
      requestText,
    ].join('\u0001')
    const viewer = principal
    const found = cacheable ? cache.get(key, viewer) : undefined
    if (found) return authorizeReached(principal, found)
    const built = await build(principal, target, request, settings)
    const trace = { viewerUsed: false }
    const compiled = authorizeReached(
      principal,
      compileStatement(registry, kind, target.entity, built, request, {
        ...compileOptions(principal, settings, trace),
        count,
      }),
    )
    // The cache holds its entries' text: a statement too long to keep is compiled again when asked for again.
    if (cacheable && compiled.statement.text.length <= MAX_CACHED_STATEMENT_CHARS)
      cache.set(key, viewer, named(compiled), trace.viewerUsed)
    return compiled
  }

  /**
   * Runs a statement read-only (with the tenant's statement timeout on PostgreSQL; PGlite cannot interrupt one).
   * With raw SQL filters, a database error is the client's SQL, answered 400 without its text.
   */
  async function execute<T>(
    principal: Principal,
    settings: TenantSettings,
    statement: TextStatement,
    usesSql: boolean,
    raw?: { entity: EntityDef; request: QueryRequest },
  ): Promise<T | undefined> {
    try {
      return (await database.readOnlyQuery<T>(settings.queryStatementTimeoutMs, statement, readerOf(principal)))[0]
    } catch (error) {
      const hint = () => {
        const hints = raw?.request.filters ? rawSqlHints(registry, raw.entity, raw.request.filters) : []
        return hints.length > 0 ? `: ${hints.join('; ')}` : ''
      }
      throw queryFailure(error, { surface: 'queryApi', usesSql, hint })
    }
  }

  const inList = (names: readonly string[], entity: EntityDef) =>
    names.some((n) => registry.find(n)?.name === entity.name)

  const counts = (settings: TenantSettings, target: Target, request: QueryRequest) =>
    request.forceCount === true || !inList(settings.hugeVolumeEntities, target.entity)

  async function listPage(
    principal: Principal,
    settings: TenantSettings,
    target: Target,
    compiled: CompiledStatement,
    request: QueryRequest,
  ): Promise<ListPage> {
    const found = await execute<{ total: string | null; data: string }>(
      principal,
      settings,
      compiled.statement,
      compiled.usesSql,
      {
        entity: target.entity,
        request,
      },
    )
    if ((found?.data.length ?? 0) > MAX_RESPONSE_CHARS)
      throw expansionError(request, 'the response is larger than 16 MiB')
    return {
      total: found?.total === null || found?.total === undefined ? undefined : Number(found.total),
      limit: compiled.limit,
      offset: compiled.offset,
      filters: request.filters,
      dataJson: found ? compactJson(found.data) : '[]',
      extractList: request.extractList ?? inList(settings.extractListEntities, target.entity),
    }
  }

  /** A list page with its rows as the database's JSON text. */
  async function list(principal: Principal, entityToken: string, request: QueryRequest): Promise<ListPage> {
    const target = authorizedTarget(registry, principal, entityToken)
    const settings = await cachedTenantSettings(database.db)
    const count = counts(settings, target, request)
    const compiled = await statementFor('list', principal, target, entityToken, request, settings, count)
    return listPage(principal, settings, target, compiled, request)
  }

  return {
    registry,
    list,
    /** Compiled statements held now, for the metrics (the cache holds at most STATEMENT_CACHE_SIZE). */
    cachedStatements: () => cache.size,

    /** As `list`, with parsed rows: what saved report executions use. */
    async runList(principal: Principal, entityToken: string, request: QueryRequest): Promise<ListResult> {
      const page = await list(principal, entityToken, request)
      return {
        total: page.total,
        limit: page.limit,
        offset: page.offset,
        filters: page.filters,
        // Decimals a double cannot hold stay exact JSON numbers (saved report executions write them verbatim).
        data: parseDatabaseJson(page.dataJson) as unknown[],
      }
    },

    /**
     * Checks a request against the registry without running it (saved report queries validate on write). Raw SQL
     * keys need queryExpert from whoever saves them, and again from whoever runs the query later.
     */
    async validate(principal: Principal, entityToken: string, request: QueryRequest): Promise<QueryAst> {
      const target = resolveTarget(registry, entityToken)
      const settings = await cachedTenantSettings(database.db)
      return (await build(principal, target, request, settings)).ast
    },

    /** The entity a token names (simple or full name, camelCase, or a subclass restricted to its rows). */
    resolveEntity(token: string): { entity: EntityDef; restriction: Condition | undefined } {
      const target = resolveTarget(registry, token)
      return { entity: target.entity, restriction: target.restriction }
    },

    /**
     * Runs an AST built elsewhere (the Deep workbench) as the caller: the view role of every entity it reaches,
     * the caller's row-level restriction, read-only as the query role, with the given timeout. Answers the rows as
     * JSON array text. A database error the query text caused is INVALID_QUERY naming its SQLSTATE only; a
     * statement past its timeout is QUERY_TIMEOUT.
     */
    async runAst(principal: Principal, ast: QueryAst, options: { timeoutMs: number }): Promise<string> {
      const target = authorizedTarget(registry, principal, ast.entity)
      const settings = await cachedTenantSettings(database.db)
      const frozen = freeze(ast)
      const request: QueryRequest = { forceCount: false, extractList: false }
      const compiled = authorizeReached(
        principal,
        compileStatement(registry, 'list', target.entity, { ast: frozen, usesSql: false }, request, {
          ...compileOptions(principal, settings),
          count: false,
        }),
      )
      let found: { data: string } | undefined
      try {
        found = (
          await database.readOnlyQuery<{ data: string }>(options.timeoutMs, compiled.statement, readerOf(principal))
        )[0]
      } catch (error) {
        throw queryFailure(error, { surface: 'workbench', timeoutMs: options.timeoutMs })
      }
      return found ? compactJson(found.data) : '[]'
    },

    async count(principal: Principal, entityToken: string, request: QueryRequest): Promise<{ total: number }> {
      const target = authorizedTarget(registry, principal, entityToken)
      const settings = await cachedTenantSettings(database.db)
      const compiled = await statementFor('count', principal, target, entityToken, request, settings, true)
      const found = await execute<{ total: string }>(principal, settings, compiled.statement, compiled.usesSql)
      return { total: Number(found?.total ?? 0) }
    },

    /** One entity as JSON text; 404 when it does not exist or the caller may not see it. */
    async get(principal: Principal, entityToken: string, id: string, request: QueryRequest): Promise<string> {
      const target = authorizedTarget(registry, principal, entityToken)
      if (!target.entity.fields.has('id')) throw new AppError('NOT_FOUND', `entity ${shorten(entityToken)} has no id`)
      const numeric = hasNumericId(target.entity)
      if (numeric && !/^\d{1,18}$/.test(id)) throw parameterError('id', `expected a numeric id, got ${shorten(id)}`)
      const settings = await cachedTenantSettings(database.db)
      const compiled = await statementFor('get', principal, target, entityToken, request, settings, false)
      const found = await execute<{ data: string }>(
        principal,
        settings,
        withId(compiled, numeric ? String(BigInt(id)) : id),
        compiled.usesSql,
      )
      if (!found) throw new AppError('NOT_FOUND', `entity ${shorten(entityToken)} with id ${shorten(id)} not found`)
      if (found.data.length > MAX_RESPONSE_CHARS) throw expansionError(request, 'the response is larger than 16 MiB')
      return compactJson(found.data)
    },

    /**
     * The caller may use the Query API on this entity (or, without one, on some entity). Routes that only answer
     * 405 still authenticate and authorize first, like every other route.
     */
    assertCanQuery(principal: Principal, entityToken: string | undefined): void {
      if (entityToken !== undefined && (registry.find(entityToken)?.queryable || registry.findSubclass(entityToken))) {
        authorizedTarget(registry, principal, entityToken)
        return
      }
      requireSomeReadable(registry, principal)
    },

    /** The entity names the caller may query (readable by its roles), subclasses included. */
    entities: (principal: Principal, options: EntityListOptions) => readableEntities(registry, principal, options),
    opencellFields: (
      principal: Principal,
      entityToken: string,
      options: { depth: number; filter: string | undefined },
    ) => opencellFields(registry, principal, entityToken, options),
    fieldMapping: (principal: Principal, entityToken: string) => fieldMapping(registry, principal, entityToken),
  }
}
