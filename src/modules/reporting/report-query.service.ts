import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { AppError } from '../../kernel/errors.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { registry } from '../../kernel/model/index.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import {
  ADVANCED_QUERY_KEYS,
  SYNC_ROW_CAP,
  VISIBILITIES,
  canEdit,
  isVisible,
  toWire,
  type StoredReportQuery,
} from './report-query.model.ts'
import { SYSTEM_QUERIES } from './system-queries.ts'

/** What a saved query runs on: the Query API engine (no second engine). */
export interface QueryRunner {
  /**
   * Throws INVALID_FILTER / INVALID_PARAMETER when the request does not fit the entity, and FORBIDDEN when it holds
   * raw SQL keys and the caller saving it lacks queryExpert.
   */
  validate(principal: Principal, entityToken: string, advancedQuery: Record<string, unknown>): Promise<void>
  run(
    principal: Principal,
    entityToken: string,
    advancedQuery: Record<string, unknown>,
    limit: number,
  ): Promise<unknown[]>
  /** Checks a Deep (HQL) text without running it; answers the entity it reads. Throws INVALID_QUERY. */
  checkHql(text: string): string
  /** Runs a saved Deep query as the caller (the Deep workbench: governed, audited), at most `limit` rows. */
  runHql(principal: Principal, text: string, limit: number): Promise<unknown[]>
}

/** A query saved from the workbench: Deep (HQL) or Expert (NATIVE_SQL) text instead of an advancedQuery. */
export interface WorkbenchQueryInput {
  code?: string | null
  description?: string | null
  visibility?: string | null
  queryType?: string | null
  queryText?: string | null
  tags?: string[] | null
}

const WORKBENCH_TYPES = ['HQL', 'NATIVE_SQL'] as const
const MAX_QUERY_TEXT = 20_000

export interface ReportQueryInput {
  code?: string | null
  description?: string | null
  targetEntity?: string | null
  visibility?: string | null
  tags?: string[] | null
  aliases?: Record<string, string> | null
  advancedQuery?: Record<string, unknown> | null
}

const missing = (field: string, message = `${field} is required`) =>
  new AppError('MISSING_PARAMETER', message, { details: [{ field, message }] })
const invalid = (field: string, message: string) =>
  new AppError('INVALID_PARAMETER', message, { details: [{ field, message }] })
const notFound = (code: string) => new AppError('ENTITY_NOT_FOUND', `Report query ${code} not found`)

const COLUMNS = sql`id, code, description, target_entity as "targetEntity", visibility, tags, aliases,
  advanced_query as "advancedQuery", query_type as "queryType", query_text as "queryText", system,
  owner_groups as "ownerGroups", creator`

function isEmpty(value: unknown): boolean {
  return (
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && value !== null && Object.keys(value).length === 0)
  )
}

/** Saved report queries: metadata with visibility, and synchronous execution through the Query API engine. */
export class ReportQueryService {
  private readonly db: Db
  private readonly runner: QueryRunner

  constructor(db: Db, runner: QueryRunner) {
    this.db = db
    this.runner = runner
  }

  /** Writes the system queries defined in code (they change with releases). */
  async syncSystemQueries(): Promise<void> {
    for (const q of SYSTEM_QUERIES) {
      await this.db
        .execute(sql`insert into report_query (code, description, target_entity, visibility, tags, advanced_query, query_type, system, creator)
        values (${q.code}, ${q.description}, ${q.targetEntity}, 'PUBLIC', ${textArray(q.tags)}, ${JSON.stringify(q.advancedQuery)}::jsonb, 'VISUAL', true, 'system')
        on conflict (code) do update set description = excluded.description, target_entity = excluded.target_entity,
          tags = excluded.tags, advanced_query = excluded.advanced_query, system = true, visibility = 'PUBLIC'`)
    }
  }

  private async load(code: string, tx: Db = this.db, lock = false): Promise<StoredReportQuery | undefined> {
    const found = await one<Omit<StoredReportQuery, 'id'> & { id: string | number }>(
      tx,
      lock
        ? sql`select ${COLUMNS} from report_query where code = ${code} for update`
        : sql`select ${COLUMNS} from report_query where code = ${code}`,
    )
    return found ? { ...found, id: Number(found.id) } : undefined
  }

  /** The query if the caller may see it; otherwise as if it did not exist. */
  private async visible(principal: Principal, code: string, tx?: Db, lock = false): Promise<StoredReportQuery> {
    const query = await this.load(code, tx, lock)
    if (!query || !isVisible(query, principal)) throw notFound(code)
    return query
  }

  async get(principal: Principal, code: string) {
    return toWire(await this.visible(principal, code))
  }

  /** Checks a complete query (create, upsert): required fields, visibility, entity, advancedQuery keys and content. */
  private async validateComplete(
    principal: Principal,
    input: ReportQueryInput,
  ): Promise<{ code: string; targetEntity: string; visibility: string; advancedQuery: Record<string, unknown> }> {
    for (const field of ['code', 'targetEntity', 'visibility', 'advancedQuery'] as const) {
      const value = input[field]
      if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
        throw missing(field)
    }
    if (isEmpty(input.advancedQuery)) throw missing('advancedQuery', 'advancedQuery must not be empty')
    const targetEntity = this.checkEntity(input.targetEntity!)
    this.checkVisibility(input.visibility!)
    await this.checkAdvancedQuery(principal, targetEntity, input.advancedQuery!)
    return { code: input.code!, targetEntity, visibility: input.visibility!, advancedQuery: input.advancedQuery! }
  }

  private checkVisibility(visibility: string): void {
    if (!(VISIBILITIES as readonly string[]).includes(visibility)) {
      throw invalid('visibility', `visibility ${visibility} is not one of ${VISIBILITIES.join(', ')}`)
    }
  }

  private checkEntity(token: string): string {
    const entity = registry.find(token)
    if (!entity?.queryable) throw invalid('targetEntity', `targetEntity ${token} is not a known entity`)
    return entity.name
  }

  private async checkAdvancedQuery(
    principal: Principal,
    entity: string,
    advancedQuery: Record<string, unknown>,
  ): Promise<void> {
    for (const key of Object.keys(advancedQuery)) {
      if (!(ADVANCED_QUERY_KEYS as readonly string[]).includes(key)) {
        throw invalid(
          `advancedQuery.${key}`,
          `advancedQuery key ${key} is not accepted; expected one of ${ADVANCED_QUERY_KEYS.join(', ')}`,
        )
      }
    }
    try {
      await this.runner.validate(principal, entity, advancedQuery)
    } catch (error) {
      if (error instanceof AppError && error.status === 400) {
        throw new AppError('INVALID_PARAMETER', `advancedQuery: ${error.message}`, { details: error.details })
      }
      throw error
    }
  }

  async create(principal: Principal, input: ReportQueryInput) {
    const valid = await this.validateComplete(principal, input)
    try {
      await this.db
        .execute(sql`insert into report_query (code, description, target_entity, visibility, tags, aliases, advanced_query,
          query_type, system, owner_groups, creator)
        values (${valid.code}, ${input.description || null}, ${valid.targetEntity}, ${valid.visibility}, ${textArray(input.tags ?? [])},
          ${JSON.stringify(input.aliases ?? {})}::jsonb, ${JSON.stringify(valid.advancedQuery)}::jsonb, 'VISUAL', false,
          ${textArray(principal.groups)}, ${principal.username})`)
    } catch (error) {
      if (pgErrorOf(error)?.code === '23505')
        throw new AppError('ENTITY_ALREADY_EXISTS', `Report query ${valid.code} already exists`)
      throw error
    }
    return toWire((await this.load(valid.code))!)
  }

  /** Create or replace: the path's code wins; 201 when created, 200 when updated. */
  async upsert(
    principal: Principal,
    code: string,
    input: ReportQueryInput,
  ): Promise<{ created: boolean; query: ReturnType<typeof toWire> }> {
    const complete = { ...input, code }
    const valid = await this.validateComplete(principal, complete)
    const existing = await this.load(code)
    if (!existing) {
      try {
        return { created: true, query: await this.create(principal, complete) }
      } catch (error) {
        // Created concurrently by someone else: continue as an update of that record.
        if (!(error instanceof AppError && error.code === 'ENTITY_ALREADY_EXISTS')) throw error
      }
    }
    await this.db.transaction(async (tx) => {
      const current = (await this.load(code, tx, true))!
      // A code owned by a query the caller cannot see is still taken (codes are unique across owners).
      if (!isVisible(current, principal))
        throw new AppError('ENTITY_ALREADY_EXISTS', `Report query ${code} already exists`)
      this.assertEditable(current, principal)
      await tx.execute(sql`update report_query set description = ${input.description || null}, target_entity = ${valid.targetEntity},
        visibility = ${valid.visibility}, tags = ${textArray(input.tags ?? [])}, aliases = ${JSON.stringify(input.aliases ?? {})}::jsonb,
        advanced_query = ${JSON.stringify(valid.advancedQuery)}::jsonb, query_type = 'VISUAL', query_text = null,
        updated = now(), updater = ${principal.username} where id = ${current.id}`)
    })
    return { created: false, query: toWire((await this.load(code))!) }
  }

  private assertEditable(query: StoredReportQuery, principal: Principal): void {
    if (query.system)
      throw new AppError('ENTITY_IN_USE', `Report query ${query.code} is a system query and cannot be changed`)
    if (!canEdit(query, principal)) {
      throw new AppError(
        'FORBIDDEN',
        `Report query ${query.code} belongs to ${query.creator ?? 'another user'}; changing it needs the role queryManagement`,
      )
    }
  }

  /** Partial update: null or absent keeps a value; an empty value clears it; advancedQuery {} is refused. */
  async update(principal: Principal, code: string, input: ReportQueryInput) {
    if (input.code !== undefined && input.code !== null && input.code !== code) {
      throw invalid('code', `code is the query's identity and cannot change (${code})`)
    }
    const sets = [sql`updated = now()`, sql`updater = ${principal.username}`]
    // Validation reads the registry and custom field templates: done before the transaction, because the embedded
    // database has one connection and a read outside a open transaction would wait for it.
    const before = await this.visible(principal, code)
    this.assertEditable(before, principal)
    if (input.description !== undefined && input.description !== null)
      sets.push(sql`description = ${input.description === '' ? null : input.description}`)
    let target = before.targetEntity
    if (input.targetEntity !== undefined && input.targetEntity !== null) {
      if (input.targetEntity === '') throw missing('targetEntity', 'targetEntity cannot be cleared')
      target = this.checkEntity(input.targetEntity)
      sets.push(sql`target_entity = ${target}`)
    }
    if (input.visibility !== undefined && input.visibility !== null) {
      if (input.visibility === '') throw missing('visibility', 'visibility cannot be cleared')
      this.checkVisibility(input.visibility)
      sets.push(sql`visibility = ${input.visibility}`)
    }
    if (input.tags !== undefined && input.tags !== null) sets.push(sql`tags = ${textArray(input.tags)}`)
    if (input.aliases !== undefined && input.aliases !== null)
      sets.push(sql`aliases = ${JSON.stringify(input.aliases)}::jsonb`)
    if (input.advancedQuery !== undefined && input.advancedQuery !== null) {
      if (isEmpty(input.advancedQuery)) throw missing('advancedQuery', 'advancedQuery cannot be cleared')
      if (before.queryType !== 'VISUAL')
        throw invalid('advancedQuery', `Report query ${code} is a ${before.queryType} query`)
      await this.checkAdvancedQuery(principal, target!, input.advancedQuery)
      sets.push(sql`advanced_query = ${JSON.stringify(input.advancedQuery)}::jsonb`)
    } else if (input.targetEntity && before.advancedQuery) {
      // A new target entity must still fit the stored query.
      await this.checkAdvancedQuery(principal, target!, before.advancedQuery)
    }
    await this.db.transaction(async (tx) => {
      // Re-read under the lock: a concurrent delete or system flag wins over this update.
      const current = await this.visible(principal, code, tx, true)
      this.assertEditable(current, principal)
      await tx.execute(sql`update report_query set ${sql.join(sets, sql`, `)} where id = ${current.id}`)
    })
    return toWire((await this.load(code))!)
  }

  async delete(principal: Principal, code: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const current = await this.visible(principal, code, tx, true)
      this.assertEditable(current, principal)
      await tx.execute(sql`delete from report_query where id = ${current.id}`)
    })
  }

  /** Runs the stored query through the Query API engine as the caller: capped at 100 rows, recorded. */
  async execute(principal: Principal, code: string, mode: string | undefined) {
    if (mode !== undefined && mode.toLowerCase() !== 'sync') {
      throw invalid(
        'mode',
        mode.toLowerCase() === 'async'
          ? 'mode async is not supported: async execution is not yet available, only sync is supported'
          : `mode must be sync (the only execution mode available), got '${mode}'`,
      )
    }
    const query = await this.visible(principal, code)
    if (query.queryType === 'NATIVE_SQL') {
      throw invalid(
        'mode',
        `Report query ${code} is an Expert (native SQL) query: Expert queries run asynchronously through the workbench`,
      )
    }
    if (query.queryType === 'HQL') return this.executeHql(principal, query)
    if (query.queryType !== 'VISUAL' || !query.advancedQuery || !query.targetEntity) {
      throw invalid(
        'queryType',
        `Report query ${code} is a ${query.queryType} query, which this version cannot execute here`,
      )
    }
    const started = new Date()
    const startedAt = performance.now()
    try {
      const data = (await this.runner.run(principal, query.targetEntity, query.advancedQuery, SYNC_ROW_CAP)).slice(
        0,
        SYNC_ROW_CAP,
      )
      await this.record(
        query.id,
        principal.username,
        started,
        performance.now() - startedAt,
        data.length,
        'SUCCESS',
        null,
      )
      return { status: 'SUCCESS', rowCount: data.length, rows: data }
    } catch (error) {
      const message = error instanceof AppError ? error.message : 'unexpected failure'
      await this.record(
        query.id,
        principal.username,
        started,
        performance.now() - startedAt,
        0,
        'FAILED',
        message,
      ).catch(() => undefined)
      throw error
    }
  }

  /** A saved Deep query runs in Deep mode with the report cap (100 rows), recorded like any execution. */
  private async executeHql(principal: Principal, query: StoredReportQuery) {
    const started = new Date()
    const startedAt = performance.now()
    try {
      const data = await this.runner.runHql(principal, query.queryText ?? '', SYNC_ROW_CAP)
      await this.record(
        query.id,
        principal.username,
        started,
        performance.now() - startedAt,
        data.length,
        'SUCCESS',
        null,
      )
      return { status: 'SUCCESS', rowCount: data.length, rows: data }
    } catch (error) {
      const message = error instanceof AppError ? error.message : 'unexpected failure'
      await this.record(
        query.id,
        principal.username,
        started,
        performance.now() - startedAt,
        0,
        'FAILED',
        message,
      ).catch(() => undefined)
      throw error
    }
  }

  // ------------------------------------------------------------------------------------- saved workbench queries

  /** The type and text of a workbench query, checked: HQL must parse against the registry. */
  private checkWorkbenchText(queryType: string, queryText: string): { targetEntity: string | null } {
    if (queryText.length > MAX_QUERY_TEXT)
      throw invalid('queryText', `queryText holds at most ${MAX_QUERY_TEXT} characters`)
    if (queryType === 'HQL') return { targetEntity: this.runner.checkHql(queryText) }
    return { targetEntity: null }
  }

  private workbenchType(value: string): 'HQL' | 'NATIVE_SQL' {
    const type = WORKBENCH_TYPES.find((t) => t === value.toUpperCase())
    if (!type) throw invalid('queryType', `queryType ${value} is not one of ${WORKBENCH_TYPES.join(', ')}`)
    return type
  }

  /** Saves a Deep or Expert query: the same records as report queries, carrying their text. */
  async createWorkbenchQuery(principal: Principal, input: WorkbenchQueryInput) {
    for (const field of ['code', 'visibility', 'queryType', 'queryText'] as const) {
      const value = input[field]
      if (value === undefined || value === null || value.trim() === '') throw missing(field)
    }
    const queryType = this.workbenchType(input.queryType!)
    this.checkVisibility(input.visibility!)
    const { targetEntity } = this.checkWorkbenchText(queryType, input.queryText!)
    try {
      await this.db.execute(sql`insert into report_query (code, description, target_entity, visibility, tags, aliases,
          query_type, query_text, system, owner_groups, creator)
        values (${input.code!}, ${input.description || null}, ${targetEntity}, ${input.visibility!},
          ${textArray(input.tags ?? [])}, '{}'::jsonb, ${queryType}, ${input.queryText!}, false,
          ${textArray(principal.groups)}, ${principal.username})`)
    } catch (error) {
      if (pgErrorOf(error)?.code === '23505')
        throw new AppError('ENTITY_ALREADY_EXISTS', `Query ${input.code!} already exists`)
      throw error
    }
    return toWire((await this.load(input.code!))!)
  }

  /** The workbench queries (HQL and NATIVE_SQL) the caller may see, by code. */
  async listWorkbenchQueries(principal: Principal) {
    const found = await rows<Omit<StoredReportQuery, 'id'> & { id: string | number }>(
      this.db,
      sql`select ${COLUMNS} from report_query where query_type in ('HQL', 'NATIVE_SQL') order by code`,
    )
    const visible = found.map((q) => ({ ...q, id: Number(q.id) })).filter((q) => isVisible(q, principal))
    return { total: visible.length, data: visible.map(toWire) }
  }

  /** Partial update of a workbench query: only what is sent changes; the text is checked again. */
  async updateWorkbenchQuery(principal: Principal, code: string, input: WorkbenchQueryInput) {
    if (input.code !== undefined && input.code !== null && input.code !== code)
      throw invalid('code', `code is the query's identity and cannot change (${code})`)
    const before = await this.visible(principal, code)
    this.assertEditable(before, principal)
    if (before.queryType === 'VISUAL')
      throw invalid('queryType', `Query ${code} is a report query: change it through /api/v1/reportQueries/${code}`)
    const queryType = input.queryType ? this.workbenchType(input.queryType) : before.queryType
    const sets = [sql`updated = now()`, sql`updater = ${principal.username}`, sql`query_type = ${queryType}`]
    if (input.description !== undefined && input.description !== null)
      sets.push(sql`description = ${input.description === '' ? null : input.description}`)
    if (input.visibility !== undefined && input.visibility !== null) {
      this.checkVisibility(input.visibility)
      sets.push(sql`visibility = ${input.visibility}`)
    }
    if (input.tags !== undefined && input.tags !== null) sets.push(sql`tags = ${textArray(input.tags)}`)
    const text = input.queryText ?? before.queryText ?? ''
    if (input.queryText === '') throw missing('queryText', 'queryText cannot be cleared')
    const { targetEntity } = this.checkWorkbenchText(queryType, text)
    sets.push(sql`query_text = ${text}`, sql`target_entity = ${targetEntity}`)
    await this.db.transaction(async (tx) => {
      // Re-read under the lock: a concurrent delete or change of owner wins over this update.
      const current = await this.visible(principal, code, tx, true)
      this.assertEditable(current, principal)
      await tx.execute(sql`update report_query set ${sql.join(sets, sql`, `)} where id = ${current.id}`)
    })
    return toWire((await this.load(code))!)
  }

  private async record(
    queryId: number,
    user: string,
    started: Date,
    durationMs: number,
    rowCount: number,
    status: string,
    error: string | null,
  ) {
    await this.db
      .execute(sql`insert into report_query_execution (report_query_id, executed_by, started_at, duration_ms, row_count, status, error)
      values (${queryId}, ${user}, ${started.toISOString()}::timestamptz, ${Math.round(durationMs)}, ${rowCount}, ${status}, ${error})`)
  }

  /** The caller's executions of a query (queryManagement: everyone's), newest first. */
  async executions(principal: Principal, code: string) {
    const query = await this.visible(principal, code)
    const all = principal.roles.has('queryManagement')
    const data = await rows<Record<string, unknown>>(
      this.db,
      sql`select id, executed_by as "executedBy", ${instantText(sql`started_at`)} as "startedAt",
          duration_ms as "durationMs", row_count as "rowCount", status, error
        from report_query_execution where report_query_id = ${query.id} ${all ? sql`` : sql`and executed_by = ${principal.username}`}
        order by id desc limit 100`,
    )
    return { total: data.length, data: data.map((d) => ({ ...d, id: Number(d.id) })) }
  }
}
