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
 * Grants the query role exactly the tables the registry exposes, revoking anything else it held in the public
 * schema. Runs in the migration transaction, under its advisory lock: concurrent GRANTs on one table could
 * otherwise fail with "tuple concurrently updated" when several instances start together.
 */
export async function syncQueryRoleGrants(tx: Db): Promise<void> {
  const role = sql.identifier(QUERY_ROLE)
  const tables = [...new Set(registry.queryable().map((entity) => entity.tableName))].sort()
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
