import type { Clock } from '../../kernel/clock.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Db } from '../../kernel/db/database.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { AppError } from '../../kernel/errors.ts'
import { defaultPageLimit, pageOf, type PageRequest } from '../../kernel/http/pagination.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { registry } from '../../kernel/model/index.ts'
import {
  ADVANCED_QUERY_KEYS,
  SYNC_ROW_CAP,
  VISIBILITIES,
  canEdit,
  isVisible,
  missingExpertRole,
  toWire,
  type StoredReportQuery,
} from './report-query.model.ts'
import * as repo from './report-query.repository.ts'
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
/** The longest query a saved query holds: a workbench text, or a report's advancedQuery written as JSON. */
const MAX_QUERY_TEXT = 20_000
/** Saved queries a user may own (report and workbench queries alike: the same records). */
export const MAX_SAVED_QUERIES_PER_USER = 500

/** Runs in the transaction deleting a saved query (its schedule goes with it). */
export type QueryDeleteListener = (tx: Db, code: string) => Promise<void>

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

function isEmpty(value: unknown): boolean {
  return (
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && value !== null && Object.keys(value).length === 0)
  )
}

function checkVisibility(visibility: string): void {
  if (!(VISIBILITIES as readonly string[]).includes(visibility)) {
    throw invalid('visibility', `visibility ${visibility} is not one of ${VISIBILITIES.join(', ')}`)
  }
}

function checkEntity(token: string): string {
  const entity = registry.find(token)
  if (!entity?.queryable) throw invalid('targetEntity', `targetEntity ${token} is not a known entity`)
  return entity.name
}

function workbenchType(value: string): 'HQL' | 'NATIVE_SQL' {
  const type = WORKBENCH_TYPES.find((t) => t === value.toUpperCase())
  if (!type) throw invalid('queryType', `queryType ${value} is not one of ${WORKBENCH_TYPES.join(', ')}`)
  return type
}

/** System queries are never changed (409); others by their owner or a holder of queryManagement (403 otherwise). */
function assertEditable(query: StoredReportQuery, principal: Principal): void {
  if (query.system)
    throw new AppError('ENTITY_IN_USE', `Report query ${query.code} is a system query and cannot be changed`)
  if (!canEdit(query, principal)) {
    throw new AppError(
      'FORBIDDEN',
      `Report query ${query.code} belongs to ${query.creator ?? 'another user'}; changing it needs the role queryManagement`,
    )
  }
}

/**
 * Changing or replacing a query (not deleting it): editable by the caller, and for a NATIVE_SQL one the caller holds
 * queryUser and queryExpert, owner and query manager alike (a rewritten native query runs as its owner on schedule).
 */
function assertRewritable(query: StoredReportQuery, principal: Principal): void {
  assertEditable(query, principal)
  if (query.queryType === 'NATIVE_SQL') assertMayWriteNative(principal, query.code)
}

function assertMayWriteNative(principal: Principal, code: string): void {
  const missing = missingExpertRole(principal)
  if (missing)
    throw new AppError(
      'FORBIDDEN',
      `Saving or changing the Expert (NATIVE_SQL) query ${code} needs the role ${missing}`,
    )
}

/** A unique-key violation (PostgreSQL code 23505) becomes ENTITY_ALREADY_EXISTS with `message`. */
async function uniquely(message: string, run: () => Promise<void>): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (pgErrorOf(error)?.code === '23505') throw new AppError('ENTITY_ALREADY_EXISTS', message)
    throw error
  }
}

/** A value the client sent: neither absent (undefined, null) nor blank. */
function present(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value.trim() !== ''
}

interface ValidQuery {
  code: string
  targetEntity: string
  visibility: string
  advancedQuery: Record<string, unknown>
}

/** The columns of a complete report query (created, or replaced by an upsert): what was not sent is empty. */
function reportColumns(valid: ValidQuery, input: ReportQueryInput) {
  return {
    description: input.description || null,
    targetEntity: valid.targetEntity,
    visibility: valid.visibility,
    tags: input.tags ?? [],
    aliases: input.aliases ?? {},
    advancedQuery: valid.advancedQuery,
    queryType: 'VISUAL' as const,
    queryText: null,
  }
}

export type ReportQueryService = ReturnType<typeof createReportQueryService>

/**
 * Saved report queries: metadata with visibility, and synchronous execution through the Query API engine; Deep and
 * Expert queries saved from the workbench are the same records, carrying their text.
 */
export function createReportQueryService(deps: {
  db: Db
  runner: QueryRunner
  clock: Clock
  onDelete?: readonly QueryDeleteListener[]
}) {
  const { db, runner, clock } = deps

  /** Inserts a user's query within their MAX_SAVED_QUERIES_PER_USER; a taken code is ENTITY_ALREADY_EXISTS. */
  async function insertOwned(query: repo.NewQuery, what: 'Report query' | 'Query'): Promise<void> {
    let inserted = false
    await uniquely(`${what} ${query.code} already exists`, async () => {
      inserted = await repo.insertQueryWithin(db, query, MAX_SAVED_QUERIES_PER_USER)
    })
    if (!inserted)
      throw new AppError(
        'SAVED_QUERY_LIMIT_REACHED',
        `At most ${MAX_SAVED_QUERIES_PER_USER} saved queries per user: delete one before saving ${query.code}`,
      )
  }

  /** A query the caller may not see behaves as if it did not exist (404). */
  async function visible(principal: Principal, code: string, tx: Db = db, lock = false): Promise<StoredReportQuery> {
    const query = await repo.findByCode(tx, code, lock)
    if (!query || !isVisible(query, principal)) throw notFound(code)
    return query
  }

  /** The wire form of a query just written (it exists: the caller wrote it in this request). */
  async function written(code: string) {
    const query = await repo.findByCode(db, code)
    if (!query) throw notFound(code)
    return toWire(query)
  }

  async function checkAdvancedQuery(
    principal: Principal,
    entity: string,
    advancedQuery: Record<string, unknown>,
  ): Promise<void> {
    if (JSON.stringify(advancedQuery).length > MAX_QUERY_TEXT)
      throw invalid('advancedQuery', `advancedQuery holds at most ${MAX_QUERY_TEXT} characters written as JSON`)
    for (const key of Object.keys(advancedQuery)) {
      if (!(ADVANCED_QUERY_KEYS as readonly string[]).includes(key)) {
        throw invalid(
          `advancedQuery.${key}`,
          `advancedQuery key ${key} is not accepted; expected one of ${ADVANCED_QUERY_KEYS.join(', ')}`,
        )
      }
    }
    try {
      await runner.validate(principal, entity, advancedQuery)
    } catch (error) {
      if (error instanceof AppError && error.status === 400) {
        throw new AppError('INVALID_PARAMETER', `advancedQuery: ${error.message}`, { details: error.details })
      }
      throw error
    }
  }

  /** Checks a complete query (create, upsert): required fields, visibility, entity, advancedQuery keys and content. */
  async function validateComplete(principal: Principal, input: ReportQueryInput): Promise<ValidQuery> {
    const { code, targetEntity, visibility, advancedQuery } = input
    if (!present(code)) throw missing('code')
    if (!present(targetEntity)) throw missing('targetEntity')
    if (!present(visibility)) throw missing('visibility')
    if (advancedQuery === undefined || advancedQuery === null) throw missing('advancedQuery')
    if (isEmpty(advancedQuery)) throw missing('advancedQuery', 'advancedQuery must not be empty')
    const entity = checkEntity(targetEntity)
    checkVisibility(visibility)
    await checkAdvancedQuery(principal, entity, advancedQuery)
    return { code, targetEntity: entity, visibility, advancedQuery }
  }

  /** The type and text of a workbench query, checked: HQL must parse against the registry. */
  function checkWorkbenchText(queryType: string, queryText: string): { targetEntity: string | null } {
    if (queryText.length > MAX_QUERY_TEXT)
      throw invalid('queryText', `queryText holds at most ${MAX_QUERY_TEXT} characters`)
    if (queryType === 'HQL') return { targetEntity: runner.checkHql(queryText) }
    return { targetEntity: null }
  }

  /** Runs a saved query as the caller, recording the execution (its duration, rows, and the failure's message). */
  async function recorded(principal: Principal, query: StoredReportQuery, run: () => Promise<unknown[]>) {
    const started = clock.now()
    const startedAt = performance.now()
    const record = (rowCount: number, status: 'SUCCESS' | 'FAILED', error: string | null) =>
      repo.insertExecution(db, {
        queryId: query.id,
        user: principal.username,
        started,
        durationMs: performance.now() - startedAt,
        rowCount,
        status,
        error,
      })
    try {
      const data = await run()
      await record(data.length, 'SUCCESS', null)
      // Both engines answer rows as JSON objects (entities, or objects keyed by the selected expressions).
      return { status: 'SUCCESS' as const, rowCount: data.length, rows: data as Record<string, unknown>[] }
    } catch (error) {
      const message = error instanceof AppError ? error.message : 'unexpected failure'
      await record(0, 'FAILED', message).catch(() => undefined)
      throw error
    }
  }

  /** Validates then creates a report query (VISUAL); a taken code is ENTITY_ALREADY_EXISTS. */
  async function create(principal: Principal, input: ReportQueryInput) {
    const valid = await validateComplete(principal, input)
    await insertOwned(
      {
        code: valid.code,
        ...reportColumns(valid, input),
        ownerGroups: principal.groups,
        creator: principal.username,
      },
      'Report query',
    )
    return written(valid.code)
  }

  return {
    /** Writes the system queries defined in code (they change with releases). */
    async syncSystemQueries(): Promise<void> {
      for (const q of SYSTEM_QUERIES) await repo.upsertSystemQuery(db, q)
    },

    async get(principal: Principal, code: string) {
      return toWire(await visible(principal, code))
    },

    create,

    /** Create or replace: the path's code wins; 201 when created, 200 when updated. */
    async upsert(
      principal: Principal,
      code: string,
      input: ReportQueryInput,
    ): Promise<{ created: boolean; query: ReturnType<typeof toWire> }> {
      const complete = { ...input, code }
      const valid = await validateComplete(principal, complete)
      if (!(await repo.findByCode(db, code))) {
        try {
          return { created: true, query: await create(principal, complete) }
        } catch (error) {
          // Created concurrently by someone else: continue as an update of that record.
          if (!(error instanceof AppError && error.code === 'ENTITY_ALREADY_EXISTS')) throw error
        }
      }
      await withTransaction(db, async (tx) => {
        const current = await repo.findByCode(tx, code, true)
        if (!current) throw notFound(code)
        // A code owned by a query the caller cannot see is still taken (codes are unique across owners).
        if (!isVisible(current, principal))
          throw new AppError('ENTITY_ALREADY_EXISTS', `Report query ${code} already exists`)
        assertRewritable(current, principal)
        await repo.updateQuery(tx, current.id, reportColumns(valid, input), principal.username)
      })
      return { created: false, query: await written(code) }
    },

    /** Partial update: null or absent keeps a value; an empty value clears it; advancedQuery {} is refused. */
    async update(principal: Principal, code: string, input: ReportQueryInput) {
      if (input.code !== undefined && input.code !== null && input.code !== code) {
        throw invalid('code', `code is the query's identity and cannot change (${code})`)
      }
      const change: repo.QueryChange = {}
      // Validation reads the registry and custom field templates: done before the transaction, because the embedded
      // database has one connection and a read outside a open transaction would wait for it.
      const before = await visible(principal, code)
      assertRewritable(before, principal)
      if (input.description !== undefined && input.description !== null)
        change.description = input.description === '' ? null : input.description
      let target = before.targetEntity
      if (input.targetEntity !== undefined && input.targetEntity !== null) {
        if (input.targetEntity === '') throw missing('targetEntity', 'targetEntity cannot be cleared')
        target = checkEntity(input.targetEntity)
        change.targetEntity = target
      }
      if (input.visibility !== undefined && input.visibility !== null) {
        if (input.visibility === '') throw missing('visibility', 'visibility cannot be cleared')
        checkVisibility(input.visibility)
        change.visibility = input.visibility
      }
      if (input.tags !== undefined && input.tags !== null) change.tags = input.tags
      if (input.aliases !== undefined && input.aliases !== null) change.aliases = input.aliases
      if (input.advancedQuery !== undefined && input.advancedQuery !== null) {
        if (isEmpty(input.advancedQuery)) throw missing('advancedQuery', 'advancedQuery cannot be cleared')
        if (before.queryType !== 'VISUAL' || target === null)
          throw invalid('advancedQuery', `Report query ${code} is a ${before.queryType} query`)
        await checkAdvancedQuery(principal, target, input.advancedQuery)
        change.advancedQuery = input.advancedQuery
      } else if (input.targetEntity && before.advancedQuery && target !== null) {
        // A new target entity must still fit the stored query.
        await checkAdvancedQuery(principal, target, before.advancedQuery)
      }
      await withTransaction(db, async (tx) => {
        // Re-read under the lock: a concurrent delete or system flag wins over this update.
        const current = await visible(principal, code, tx, true)
        assertRewritable(current, principal)
        await repo.updateQuery(tx, current.id, change, principal.username)
      })
      return written(code)
    },

    /** Owners and query managers delete (a NATIVE_SQL query too, without queryExpert), with what belongs to it. */
    async delete(principal: Principal, code: string): Promise<void> {
      await withTransaction(db, async (tx) => {
        const current = await visible(principal, code, tx, true)
        assertEditable(current, principal)
        await repo.deleteQuery(tx, current.id)
        for (const listener of deps.onDelete ?? []) await listener(tx, current.code)
      })
    },

    /**
     * Runs the stored query as the caller, recorded: a report query through the Query API engine, a saved Deep query
     * in Deep mode; both capped at SYNC_ROW_CAP (100) rows. Expert queries run only asynchronously, in the workbench.
     */
    async execute(principal: Principal, code: string, mode: string | undefined) {
      if (mode !== undefined && mode.toLowerCase() !== 'sync') {
        throw invalid(
          'mode',
          mode.toLowerCase() === 'async'
            ? 'mode async is not supported: async execution is not yet available, only sync is supported'
            : `mode must be sync (the only execution mode available), got '${mode}'`,
        )
      }
      const query = await visible(principal, code)
      if (query.queryType === 'NATIVE_SQL') {
        throw invalid(
          'mode',
          `Report query ${code} is an Expert (native SQL) query: Expert queries run asynchronously through the workbench`,
        )
      }
      if (query.queryType === 'HQL')
        return recorded(principal, query, () => runner.runHql(principal, query.queryText ?? '', SYNC_ROW_CAP))
      const { targetEntity, advancedQuery } = query
      if (query.queryType !== 'VISUAL' || !advancedQuery || !targetEntity) {
        throw invalid(
          'queryType',
          `Report query ${code} is a ${query.queryType} query, which this version cannot execute here`,
        )
      }
      return recorded(principal, query, async () =>
        (await runner.run(principal, targetEntity, advancedQuery, SYNC_ROW_CAP)).slice(0, SYNC_ROW_CAP),
      )
    },

    /** The caller's executions of a query (queryManagement: everyone's), newest first. */
    async executions(principal: Principal, code: string) {
      const query = await visible(principal, code)
      const all = principal.roles.has('queryManagement')
      const data = await repo.listExecutions(db, query.id, all ? undefined : principal.username)
      return { total: data.length, data }
    },

    // ----------------------------------------------------------------------------------- saved workbench queries

    /** Saves a Deep or Expert query: the same records as report queries, carrying their text. */
    async createWorkbenchQuery(principal: Principal, input: WorkbenchQueryInput) {
      const { code, visibility, queryText } = input
      if (!present(code)) throw missing('code')
      if (!present(visibility)) throw missing('visibility')
      if (!present(input.queryType)) throw missing('queryType')
      if (!present(queryText)) throw missing('queryText')
      const queryType = workbenchType(input.queryType)
      if (queryType === 'NATIVE_SQL') assertMayWriteNative(principal, code)
      checkVisibility(visibility)
      const { targetEntity } = checkWorkbenchText(queryType, queryText)
      await insertOwned(
        {
          code,
          description: input.description || null,
          targetEntity,
          visibility,
          tags: input.tags ?? [],
          aliases: {},
          advancedQuery: null,
          queryType,
          queryText,
          ownerGroups: principal.groups,
          creator: principal.username,
        },
        'Query',
      )
      return written(code)
    },

    /**
     * A page of the workbench queries (HQL and NATIVE_SQL) the caller may see, by code, visibility decided in SQL:
     * the total, then the queries as they are read, a batch at a time, so a page of long texts is never held whole.
     */
    async listWorkbenchQueries(
      principal: Principal,
      request: PageRequest & { queryType?: 'HQL' | 'NATIVE_SQL' | undefined },
    ) {
      const page = { ...pageOf(request, await defaultPageLimit(db)), queryType: request.queryType }
      const total = await repo.countWorkbenchQueries(db, principal, page.queryType)
      async function* queries() {
        for await (const batch of repo.workbenchQueryPages(db, principal, page)) yield* batch.map(toWire)
      }
      return { total, offset: page.offset, limit: page.limit, queries: queries() }
    },

    /** Partial update of a workbench query: only what is sent changes; the text is checked again. */
    async updateWorkbenchQuery(principal: Principal, code: string, input: WorkbenchQueryInput) {
      if (input.code !== undefined && input.code !== null && input.code !== code)
        throw invalid('code', `code is the query's identity and cannot change (${code})`)
      const before = await visible(principal, code)
      assertRewritable(before, principal)
      if (before.queryType === 'VISUAL')
        throw invalid('queryType', `Query ${code} is a report query: change it through /api/v1/reportQueries/${code}`)
      const queryType = input.queryType ? workbenchType(input.queryType) : before.queryType
      if (queryType === 'NATIVE_SQL') assertMayWriteNative(principal, code)
      const change: repo.QueryChange = { queryType }
      if (input.description !== undefined && input.description !== null)
        change.description = input.description === '' ? null : input.description
      if (input.visibility !== undefined && input.visibility !== null) {
        checkVisibility(input.visibility)
        change.visibility = input.visibility
      }
      if (input.tags !== undefined && input.tags !== null) change.tags = input.tags
      const text = input.queryText ?? before.queryText ?? ''
      if (input.queryText === '') throw missing('queryText', 'queryText cannot be cleared')
      const { targetEntity } = checkWorkbenchText(queryType, text)
      change.queryText = text
      change.targetEntity = targetEntity
      await withTransaction(db, async (tx) => {
        // Re-read under the lock: a concurrent delete or change of owner wins over this update.
        const current = await visible(principal, code, tx, true)
        assertRewritable(current, principal)
        await repo.updateQuery(tx, current.id, change, principal.username)
      })
      return written(code)
    },
  }
}
