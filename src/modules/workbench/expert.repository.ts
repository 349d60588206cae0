import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { instantText } from '../../kernel/model/json.ts'
import { queryHash } from './workbench.repository.ts'

export type ExpertStatus = 'SUCCESS' | 'FAILED' | 'TIMEOUT' | 'CANCELLED'

/** An Expert run as the API shows it: status null while it runs. */
export interface ExpertExecution {
  id: number
  status: ExpertStatus | null
  startDate: string
  endDate: string | null
  lineCount: number | null
  durationMs: number | null
  filePath: string | null
  queryHash: string
  queryText: string
  username: string
  errorMessage: string | null
  savedQueryCode: string | null
  /** Data rows written so far while it runs (null before its first batch); once it ended, as lineCount. */
  rowsSoFar: number | null
  /** Whether the result stopped at the tenant's row cap, so there may be more rows than it holds. */
  truncated: boolean
  /** When truncated: the cap, in words, and the setting that raises it. */
  truncatedMessage: string | null
}

const columns = sql`id, status, ${instantText(sql`start_date`)} as "startDate", ${instantText(sql`end_date`)} as "endDate",
  line_count as "lineCount", duration_ms as "durationMs", file_path as "filePath", query_hash as "queryHash",
  query_text as "queryText", username, error_message as "errorMessage", saved_query_code as "savedQueryCode",
  rows_so_far as "rowsSoFar", row_cap as "rowCap"`

type ExecutionRow = Omit<ExpertExecution, 'id' | 'truncated' | 'truncatedMessage'> & {
  id: number | string
  rowCap: number | null
}

/** What a run that reached the row cap says: the cap and the settings that raise it. */
export function capMessage(cap: number): string {
  return (
    `The result stopped at the row cap of ${cap} rows, so the query may have more: the cap is the smaller of the ` +
    'tenant settings workbench.governor.maxRowsSync and workbench.governor.maxRowsAsync; raise both to get more rows'
  )
}

/** node-postgres reads int8 as a string: ids are JSON numbers on both drivers. */
const view = ({ rowCap, ...row }: ExecutionRow): ExpertExecution => {
  const truncated = row.status === 'SUCCESS' && rowCap !== null && row.lineCount !== null && row.lineCount >= rowCap
  return {
    ...row,
    id: Number(row.id),
    rowsSoFar: row.endDate !== null && row.lineCount !== null ? row.lineCount : row.rowsSoFar,
    truncated,
    truncatedMessage: truncated ? capMessage(rowCap) : null,
  }
}

/** The event type of a run that ended (succeeded, failed, timed out or cancelled). */
export const EXPERT_RUN_FINISHED = 'workbench.expert_run.finished'

/** Reports, in the transaction that ended them, runs that ended: each as its resource shows it. */
async function reportFinished(tx: Db, outbox: Outbox, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  const ended = await rows<ExecutionRow>(
    tx,
    sql`select ${columns} from query_execution where id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}) order by id`,
  )
  // Expert runs are platform records: no seller.
  await outbox.emitMany(
    tx,
    EXPERT_RUN_FINISHED,
    'expert_run',
    ended.map((row) => ({ aggregate: { id: Number(row.id) }, object: view(row) })),
  )
}

/** Records the data rows a running run has written so far. */
export async function recordProgress(db: Db, id: number, rowsSoFar: number): Promise<void> {
  await db.execute(sql`update query_execution set rows_so_far = ${rowsSoFar} where id = ${id} and end_date is null`)
}

export async function findExecution(db: Db, id: number): Promise<ExpertExecution | undefined> {
  const found = await one<ExecutionRow>(db, sql`select ${columns} from query_execution where id = ${id}`)
  return found && view(found)
}

export async function listExecutions(
  db: Db,
  username: string,
  page: { offset: number; limit: number },
): Promise<{ total: number; data: ExpertExecution[] }> {
  const data = await rows<ExecutionRow>(
    db,
    sql`select ${columns} from query_execution where username = ${username}
      order by id desc limit ${page.limit} offset ${page.offset}`,
  )
  const total = await one<{ n: string }>(
    db,
    sql`select count(*)::text as n from query_execution where username = ${username}`,
  )
  return { total: Number(total?.n ?? 0), data: data.map(view) }
}

/**
 * The governor's concurrency rule and the record's creation in one transaction, serialized per user by an
 * advisory lock: instances racing for a user's last free run cannot both take it. `enqueue` runs in that transaction
 * (the run's message commits with its record, or neither does). Answers the new id, or undefined when the user
 * already has `maxOpen` runs queued or running.
 */
export async function createExecution(
  db: Db,
  run: {
    username: string
    text: string
    statement: string
    savedQueryCode: string | undefined
    /** The submitter's token subject (read-your-writes on replicas); null for a scheduled run. */
    readerSubject: string | null
    instanceId: string
    auditId: number
    at: Date
    /** The tenant's row cap when it is the statement's limit (null: the submitter asked for fewer, or EXPLAIN). */
    rowCap: number | null
  },
  maxOpen: number,
  enqueue?: (tx: Db, id: number) => Promise<void>,
): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`obol.expert:${run.username}`}))`)
    const open = await one<{ n: number }>(
      tx,
      sql`select count(*)::int as n from query_execution where username = ${run.username} and end_date is null`,
    )
    if ((open?.n ?? 0) >= maxOpen) return undefined
    const created = await one<{ id: string | number }>(
      tx,
      sql`insert into query_execution (username, start_date, query_hash, query_text, statement_text, saved_query_code,
          app_instance_id, audit_id, reader_subject, row_cap)
        values (${run.username}, ${run.at.toISOString()}::timestamptz, ${queryHash(run.text)}, ${run.text},
          ${run.statement}, ${run.savedQueryCode ?? null}, ${run.instanceId}, ${run.auditId}, ${run.readerSubject},
          ${run.rowCap})
        returning id`,
    )
    const id = Number(created!.id)
    await enqueue?.(tx, id)
    return id
  })
}

/**
 * Takes a queued run for the instance `runner` (recorded as the run's instance: the stale sweep ends it if that
 * instance dies): nothing when it was cancelled, swept or taken already.
 */
export async function claimExecution(
  db: Db,
  id: number,
  runner: string,
): Promise<
  | { username: string; statement: string; startDate: Date; auditId: number | null; readerSubject: string | null }
  | undefined
> {
  const claimed = await one<{
    username: string
    statement: string
    startDate: string
    auditId: string | null
    readerSubject: string | null
  }>(
    db,
    sql`update query_execution set running_since = now(), app_instance_id = ${runner}
      where id = ${id} and end_date is null and running_since is null
      returning username, statement_text as statement, ${instantText(sql`start_date`)} as "startDate",
        audit_id as "auditId", reader_subject as "readerSubject"`,
  )
  return (
    claimed && {
      ...claimed,
      startDate: new Date(claimed.startDate),
      auditId: claimed.auditId === null ? null : Number(claimed.auditId),
    }
  )
}

/**
 * Records how a run ended, unless it already has (swept as FAILED). A run whose cancel was requested ends
 * CANCELLED whatever its statement did. Answers the status recorded, or undefined when it had ended before.
 */
export async function finishExecution(
  db: Db,
  outbox: Outbox,
  id: number,
  result: {
    status: ExpertStatus
    lineCount: number | null
    durationMs: number
    filePath: string | null
    error: string | null
  },
): Promise<ExpertStatus | undefined> {
  return db.transaction(async (tx) => {
    const done = await one<{ status: ExpertStatus }>(
      tx,
      sql`update query_execution set
        status = case when cancel_requested then 'CANCELLED' else ${result.status} end,
        end_date = now(),
        line_count = case when cancel_requested then null else ${result.lineCount}::int end,
        duration_ms = ${Math.round(result.durationMs)},
        file_path = case when cancel_requested then null else ${result.filePath} end,
        error_message = case when cancel_requested then null else ${result.error} end
      where id = ${id} and end_date is null
      returning status`,
    )
    if (done) await reportFinished(tx, outbox, [id])
    return done?.status
  })
}

/**
 * Asks for a run's cancellation: a run not yet started ends CANCELLED at once (answers 'ended'); a running one is
 * flagged (answers 'running'), for its runner to record once its statement is interrupted.
 */
export async function requestCancel(db: Db, outbox: Outbox, id: number): Promise<'ended' | 'running' | 'finished'> {
  const ended = await db.transaction(async (tx) => {
    const ended = await rows<{ id: unknown }>(
      tx,
      sql`update query_execution set cancel_requested = true, status = 'CANCELLED', end_date = now(), duration_ms = 0
        where id = ${id} and end_date is null and running_since is null returning id`,
    )
    if (ended.length > 0) await reportFinished(tx, outbox, [id])
    return ended.length > 0
  })
  if (ended) return 'ended'
  const flagged = await rows<{ id: unknown }>(
    db,
    sql`update query_execution set cancel_requested = true where id = ${id} and end_date is null returning id`,
  )
  return flagged.length > 0 ? 'running' : 'finished'
}

/** Whether someone asked to cancel a run (on whichever instance). */
export async function cancelRequested(db: Db, id: number): Promise<boolean> {
  const found = await one<{ cancel: boolean }>(
    db,
    sql`select cancel_requested as cancel from query_execution where id = ${id}`,
  )
  return found?.cancel === true
}

/** The audit entry of a run, to record its result. */
export async function auditIdOf(db: Db, id: number): Promise<number | null> {
  const found = await one<{ auditId: string | null }>(
    db,
    sql`select audit_id as "auditId" from query_execution where id = ${id}`,
  )
  return found?.auditId == null ? null : Number(found.auditId)
}

/**
 * The stale-instance sweep's part: runs an instance that stopped heartbeating had started end FAILED, so a
 * `kill -9` mid-export leaves no run open forever. A run still queued (not claimed: `running_since` null) stays
 * queued: its message goes back to the job queue and another instance, or this one after a restart, runs it.
 * Answers the runs ended, with their audit entries.
 */
export async function failRunsOfDeadInstances(
  db: Db,
  outbox: Outbox,
  selfId: string,
  staleSeconds: number,
): Promise<{ id: number; auditId: number | null }[]> {
  return db.transaction(async (tx) => {
    const ended = await rows<{ id: string | number; auditId: string | number | null }>(
      tx,
      sql`update query_execution e set status = 'FAILED', end_date = now(),
        error_message = 'the instance running this query stopped before it finished'
      where e.end_date is null and e.running_since is not null and e.app_instance_id <> ${selfId} and not exists (
        select 1 from app_instance a where a.id = e.app_instance_id and a.stopped_at is null
          and a.heartbeat_at > now() - make_interval(secs => ${staleSeconds}))
      returning e.id, e.audit_id as "auditId"`,
    )
    await reportFinished(
      tx,
      outbox,
      ended.map((row) => Number(row.id)),
    )
    return ended.map((row) => ({ id: Number(row.id), auditId: row.auditId === null ? null : Number(row.auditId) }))
  })
}

/**
 * Runs this instance is running when it stops: ended FAILED, as a dead instance's would be. Runs it submitted that
 * no worker has claimed yet stay queued for another instance (or this one after its restart).
 */
export async function failOwnOpenRuns(db: Db, outbox: Outbox, selfId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const ended = await rows<{ id: string | number }>(
      tx,
      sql`update query_execution set status = 'FAILED', end_date = now(),
          error_message = 'the instance running this query stopped before it finished'
        where end_date is null and running_since is not null and app_instance_id = ${selfId} returning id`,
    )
    await reportFinished(
      tx,
      outbox,
      ended.map((row) => Number(row.id)),
    )
  })
}
