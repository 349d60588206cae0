import { createHash } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { one, type Db } from '../../kernel/db/database.ts'

export type WorkbenchMode = 'DEEP' | 'EXPERT' | 'REPORT'
export type AuditStatus = 'SUBMITTED' | 'SUCCESS' | 'FAILED' | 'REFUSED' | 'TIMEOUT' | 'CANCELLED'

/** SHA-256 of a query text in hexadecimal: the audit's key for "the same query". */
export const queryHash = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * The audit keeps a text's first 20,000 characters, the longest query accepted (its hash is of the whole text): a
 * refused longer one, sent 30 times a minute, would otherwise grow the audit by megabytes.
 */
const auditedText = (text: string) => text.slice(0, 20_000)

/** Records a submission before anything else happens to it; the result is written by `closeAudit`. */
export async function openAudit(
  db: Db,
  entry: { username: string; mode: WorkbenchMode; text: string; at: Date },
): Promise<number> {
  const row = await one<{ id: string | number }>(
    db,
    sql`insert into query_audit (username, "timestamp", mode, query_hash, query_text, status)
      values (${entry.username}, ${entry.at.toISOString()}::timestamptz, ${entry.mode}, ${queryHash(entry.text)},
        ${auditedText(entry.text)}, 'SUBMITTED') returning id`,
  )
  return Number(row!.id)
}

export async function closeAudit(
  db: Db,
  id: number,
  result: { status: AuditStatus; rowCount?: number; durationMs: number; error?: string },
): Promise<void> {
  await db.execute(sql`update query_audit set status = ${result.status}, row_count = ${result.rowCount ?? null},
    duration_ms = ${Math.round(result.durationMs)}, error_message = ${result.error ?? null} where id = ${id}`)
}

/**
 * Records a submission and, in the same statement, takes the user's slot of the minute (`takeMinuteSlot`'s rule):
 * one round trip before the query runs. Answers the audit id and whether a slot was free.
 */
export async function openGovernedAudit(
  db: Db,
  entry: { username: string; mode: WorkbenchMode; text: string; at: Date },
  perMinute: number,
): Promise<{ id: number; slot: boolean }> {
  const minute = new Date(Math.floor(entry.at.getTime() / 60_000) * 60_000).toISOString()
  const row = await one<{ id: string | number; slot: boolean }>(
    db,
    sql`with old as (delete from workbench_usage where username = ${entry.username}
          and minute < ${minute}::timestamptz - interval '1 hour'),
        slot as (insert into workbench_usage (username, minute, count) values (${entry.username}, ${minute}::timestamptz, 1)
          on conflict (username, minute) do update set count = workbench_usage.count + 1
            where workbench_usage.count < ${perMinute}
          returning count),
        audit as (insert into query_audit (username, "timestamp", mode, query_hash, query_text, status)
          values (${entry.username}, ${entry.at.toISOString()}::timestamptz, ${entry.mode}, ${queryHash(entry.text)},
            ${auditedText(entry.text)}, 'SUBMITTED') returning id)
      select (select id from audit) as id, exists (select 1 from slot) as slot`,
  )
  return { id: Number(row!.id), slot: row!.slot }
}

/**
 * Takes one of the user's workbench queries of the minute holding `now`, if any is left: one conditional upsert,
 * so instances racing for the last slot cannot both get it. Answers the count taken, or undefined when the
 * minute's slots are gone. Counts older than an hour are dropped on the way.
 */
export async function takeMinuteSlot(db: Db, username: string, now: Date, limit: number): Promise<number | undefined> {
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString()
  const taken = await one<{ count: number }>(
    db,
    sql`with old as (delete from workbench_usage where username = ${username}
          and minute < ${minute}::timestamptz - interval '1 hour')
        insert into workbench_usage (username, minute, count) values (${username}, ${minute}::timestamptz, 1)
        on conflict (username, minute) do update set count = workbench_usage.count + 1
          where workbench_usage.count < ${limit}
        returning count`,
  )
  return taken?.count
}
