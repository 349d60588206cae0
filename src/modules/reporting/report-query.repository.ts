import { sql, type SQL } from 'drizzle-orm'
import type { Caller } from '../../kernel/caller.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import type { StoredReportQuery } from './report-query.model.ts'
import type { SYSTEM_QUERIES } from './system-queries.ts'

/** The SQL of saved queries (report, Deep and Expert) and their executions. Ids come back as numbers; no rule here. */

const COLUMNS = sql`id, code, description, target_entity as "targetEntity", visibility, tags, aliases,
  advanced_query as "advancedQuery", query_type as "queryType", query_text as "queryText", system,
  owner_groups as "ownerGroups", creator`

type Row = Omit<StoredReportQuery, 'id'> & { id: string | number }

const stored = (row: Row): StoredReportQuery => ({ ...row, id: Number(row.id) })

/** A JSON object as a jsonb parameter; null stays SQL null. */
const jsonb = (value: object | null): SQL => (value === null ? sql`null` : sql`${JSON.stringify(value)}::jsonb`)

/** Writes a system query defined in code over whatever its code held (they change with releases). */
export async function upsertSystemQuery(db: Db, q: (typeof SYSTEM_QUERIES)[number]): Promise<void> {
  await db.execute(sql`insert into report_query (code, description, target_entity, visibility, tags, advanced_query, query_type, system, creator)
    values (${q.code}, ${q.description}, ${q.targetEntity}, 'PUBLIC', ${textArray(q.tags)}, ${jsonb(q.advancedQuery)}, 'VISUAL', true, 'system')
    on conflict (code) do update set description = excluded.description, target_entity = excluded.target_entity,
      tags = excluded.tags, advanced_query = excluded.advanced_query, system = true, visibility = 'PUBLIC'`)
}

/** The query of a code; `lock` takes its row lock (inside a transaction). */
export async function findByCode(db: Db, code: string, lock = false): Promise<StoredReportQuery | undefined> {
  const found = await one<Row>(
    db,
    lock
      ? sql`select ${COLUMNS} from report_query where code = ${code} for update`
      : sql`select ${COLUMNS} from report_query where code = ${code}`,
  )
  return found ? stored(found) : undefined
}

/**
 * The saved queries a viewer may see, as SQL: the registry's row policy of ReportQuery, which the Query API applies
 * too (the rule of `isVisible`).
 */
function visibleTo(viewer: Caller): SQL {
  return registry.get('ReportQuery').rowPolicy?.(sql`report_query`, viewer) ?? sql`true`
}

const workbenchQueriesOf = (viewer: Caller, queryType: 'HQL' | 'NATIVE_SQL' | undefined): SQL =>
  sql`${queryType ? sql`query_type = ${queryType}` : sql`query_type in ('HQL', 'NATIVE_SQL')`} and ${visibleTo(viewer)}`

/** How many Deep (HQL) and Expert (NATIVE_SQL) queries a viewer may see (of one type when given). */
export async function countWorkbenchQueries(
  db: Db,
  viewer: Caller,
  queryType: 'HQL' | 'NATIVE_SQL' | undefined,
): Promise<number> {
  const found = await one<{ n: string }>(
    db,
    sql`select count(*)::text as n from report_query where ${workbenchQueriesOf(viewer, queryType)}`,
  )
  return Number(found?.n ?? 0)
}

/** Rows a page of workbench queries is read by: a few texts of at most 20,000 characters at a time. */
const PAGE_BATCH = 50

/**
 * A page of the Deep and Expert queries a viewer may see, by code, read in batches of PAGE_BATCH (the first at the
 * page's offset, the next after the last code read).
 */
export async function* workbenchQueryPages(
  db: Db,
  viewer: Caller,
  page: { offset: number; limit: number; queryType?: 'HQL' | 'NATIVE_SQL' | undefined },
): AsyncGenerator<StoredReportQuery[]> {
  let left = page.limit
  let after: string | undefined
  while (left > 0) {
    const batch = await rows<Row>(
      db,
      sql`select ${COLUMNS} from report_query where ${workbenchQueriesOf(viewer, page.queryType)}
        ${after === undefined ? sql`` : sql`and code > ${after}`}
        order by code limit ${Math.min(left, PAGE_BATCH)} ${after === undefined ? sql`offset ${page.offset}` : sql``}`,
    )
    if (batch.length === 0) return
    yield batch.map(stored)
    left -= batch.length
    after = batch.at(-1)!.code
    if (batch.length < PAGE_BATCH) return
  }
}

export interface NewQuery {
  code: string
  description: string | null
  targetEntity: string | null
  visibility: string
  tags: readonly string[]
  aliases: Record<string, string>
  advancedQuery: Record<string, unknown> | null
  queryType: StoredReportQuery['queryType']
  queryText: string | null
  ownerGroups: readonly string[]
  creator: string
}

/**
 * Inserts a user's query (never a system one) unless its creator already owns `max` saved queries: counted and
 * inserted in one transaction under a per-user advisory lock, so racing saves cannot pass the limit. Answers
 * whether it was inserted; a taken code fails with the unique violation.
 */
export async function insertQueryWithin(db: Db, q: NewQuery, max: number): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`obol.saved-queries:${q.creator}`}))`)
    const owned = await one<{ n: number }>(
      tx,
      sql`select count(*)::int as n from report_query where creator = ${q.creator} and not system`,
    )
    if ((owned?.n ?? 0) >= max) return false
    await insertQuery(tx, q)
    return true
  })
}

async function insertQuery(db: Db, q: NewQuery): Promise<void> {
  await db.execute(sql`insert into report_query (code, description, target_entity, visibility, tags, aliases, advanced_query,
      query_type, query_text, system, owner_groups, creator)
    values (${q.code}, ${q.description}, ${q.targetEntity}, ${q.visibility}, ${textArray(q.tags)}, ${jsonb(q.aliases)},
      ${jsonb(q.advancedQuery)}, ${q.queryType}, ${q.queryText}, false, ${textArray(q.ownerGroups)}, ${q.creator})`)
}

/** The columns a change sets; undefined keeps a column, null clears it. */
export interface QueryChange {
  description?: string | null
  targetEntity?: string | null
  visibility?: string
  tags?: readonly string[]
  aliases?: Record<string, string>
  advancedQuery?: Record<string, unknown> | null
  queryType?: StoredReportQuery['queryType']
  queryText?: string | null
}

/** Applies a change to the query of `id`, stamped with its updater. */
export async function updateQuery(db: Db, id: number, change: QueryChange, actor: string): Promise<void> {
  const sets = [sql`updated = now()`, sql`updater = ${actor}`]
  const set = (column: string, value: SQL) => sets.push(sql`${sql.identifier(column)} = ${value}`)
  if (change.description !== undefined) set('description', sql`${change.description}`)
  if (change.targetEntity !== undefined) set('target_entity', sql`${change.targetEntity}`)
  if (change.visibility !== undefined) set('visibility', sql`${change.visibility}`)
  if (change.tags !== undefined) set('tags', textArray(change.tags))
  if (change.aliases !== undefined) set('aliases', jsonb(change.aliases))
  if (change.advancedQuery !== undefined) set('advanced_query', jsonb(change.advancedQuery))
  if (change.queryType !== undefined) set('query_type', sql`${change.queryType}`)
  if (change.queryText !== undefined) set('query_text', sql`${change.queryText}`)
  await db.execute(sql`update report_query set ${sql.join(sets, sql`, `)} where id = ${id}`)
}

export async function deleteQuery(db: Db, id: number): Promise<void> {
  await db.execute(sql`delete from report_query where id = ${id}`)
}

export interface Execution {
  queryId: number
  user: string
  started: Date
  durationMs: number
  rowCount: number
  status: 'SUCCESS' | 'FAILED'
  error: string | null
}

/** Executions kept per query and user: what the list shows (the last 100), older ones deleted as new ones come. */
const KEPT_EXECUTIONS = 100

export async function insertExecution(db: Db, e: Execution): Promise<void> {
  await db.execute(sql`with added as (insert into report_query_execution (report_query_id, executed_by, started_at,
        duration_ms, row_count, status, error)
      values (${e.queryId}, ${e.user}, ${e.started.toISOString()}::timestamptz, ${Math.round(e.durationMs)},
        ${e.rowCount}, ${e.status}, ${e.error}))
    delete from report_query_execution where id in (
      select id from report_query_execution where report_query_id = ${e.queryId} and executed_by = ${e.user}
      order by id desc offset ${KEPT_EXECUTIONS - 1})`)
}

/** A recorded execution as answered: the start as UTC ISO text. */
export interface ExecutionView {
  id: number
  executedBy: string
  startedAt: string
  durationMs: number
  rowCount: number
  status: Execution['status']
  error: string | null
}

/** The last 100 executions of a query, newest first; only `executedBy`'s when given. */
export async function listExecutions(
  db: Db,
  queryId: number,
  executedBy: string | undefined,
): Promise<ExecutionView[]> {
  const found = await rows<Omit<ExecutionView, 'id'> & { id: string | number }>(
    db,
    sql`select id, executed_by as "executedBy", ${instantText(sql`started_at`)} as "startedAt",
        duration_ms as "durationMs", row_count as "rowCount", status, error
      from report_query_execution where report_query_id = ${queryId} ${executedBy === undefined ? sql`` : sql`and executed_by = ${executedBy}`}
      order by id desc limit 100`,
  )
  return found.map((d) => ({ ...d, id: Number(d.id) }))
}

/** A saved query's owner, type and text, whoever asks (scheduled runs act as the owner). */
export async function findSavedQuery(
  db: Db,
  code: string,
): Promise<
  { id: number; code: string; creator: string | null; queryType: string; queryText: string | null } | undefined
> {
  const found = await one<{
    id: string | number
    code: string
    creator: string | null
    queryType: string
    queryText: string | null
  }>(
    db,
    sql`select id, code, creator, query_type as "queryType", query_text as "queryText" from report_query
      where code = ${code}`,
  )
  return found && { ...found, id: Number(found.id) }
}
