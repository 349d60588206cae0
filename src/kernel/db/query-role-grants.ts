import { sql } from 'drizzle-orm'
import type { Db } from './database.ts'
import { registry } from '../model/index.ts'
import { EXPERT_ROLE, QUERY_ROLE } from './query-role.ts'

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
