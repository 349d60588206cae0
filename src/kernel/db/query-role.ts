import { sql } from 'drizzle-orm'
import type { Db } from './database.ts'
import { registry } from '../model/index.ts'

/**
 * The PostgreSQL role the query layer's statements run as (created by migration 0008). It has SELECT on the tables
 * of the entities the registry exposes to the Query API and nothing else: not the secrets schema, not the job
 * queue, not the bookkeeping tables. So a query text that slipped past validation still cannot read a secret.
 */
export const QUERY_ROLE = 'obol_query'

/**
 * The role Expert SQL runs as (created by migration 0016): SELECT on the billing data only — the queryable tables
 * less the platform's own records (users, access, jobs, saved reports, the workbench's audit and runs, settings),
 * which the Query API guards per entity and per row but a user's own SQL would read whole.
 */
export const EXPERT_ROLE = 'obol_expert'

/**
 * Grants each read role exactly its tables, revoking anything else it held in the public schema. Runs in the
 * migration transaction, under its advisory lock: concurrent GRANTs on one table could otherwise fail with "tuple
 * concurrently updated" when several instances start together.
 */
export async function syncQueryRoleGrants(tx: Db): Promise<void> {
  const tablesOf = (entities: readonly { tableName: string }[]) => [...new Set(entities.map((e) => e.tableName))].sort()
  await grantExactly(tx, QUERY_ROLE, tablesOf(registry.queryable()))
  await grantExactly(tx, EXPERT_ROLE, tablesOf(registry.expertReadable()))
}

async function grantExactly(tx: Db, roleName: string, tables: readonly string[]): Promise<void> {
  const role = sql.identifier(roleName)
  await tx.execute(sql`revoke all on all tables in schema public from ${role}`)
  await tx.execute(sql`grant usage on schema public to ${role}`)
  if (tables.length > 0) {
    await tx.execute(
      sql`grant select on ${sql.join(
        tables.map((t) => sql.identifier(t)),
        sql`, `,
      )} to ${role}`,
    )
  }
}
