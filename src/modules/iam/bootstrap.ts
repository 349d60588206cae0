import { sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { one, type Db } from '../../kernel/db/database.ts'
import type { AuthConfig } from '../../kernel/config.ts'
import type { IamService } from './iam.service.ts'
import { QUERY_ROLES } from './role-catalog.ts'
import { randomSecret, verifySecret } from './secrets.ts'

export const QUERY_ADMIN_GROUP = 'Query Administrators'

export interface BootstrapResult {
  /** Credentials generated now: printed once by the caller, never stored in clear. */
  generated: { clientId?: string; clientSecret?: string; username?: string; password?: string }
  /**
   * OBOL_ADMIN_CLIENT_SECRET is set but the database was started before with another secret: it changed nothing
   * (the caller warns, so a newcomer does not chase "client authentication failed").
   */
  ignoredClientSecret?: boolean
}

/**
 * First start: the role catalog and built-in groups, an admin service account in Platform Admin and in a group
 * holding the three query roles, and a first human admin. Later starts only re-sync the catalog.
 */
export async function bootstrapAccess(db: Db, iam: IamService, config: AuthConfig): Promise<BootstrapResult> {
  await iam.syncCatalog()
  const generated: BootstrapResult['generated'] = {}
  await withTransaction(db, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7262004)`)
    const done = await one(tx, sql`select name from obol_secrets.bootstrap_state where name = 'admins'`)
    if (done) return
    await tx.execute(sql`insert into user_group (name, description, creator) values
      (${QUERY_ADMIN_GROUP}, 'Query API, report queries, Deep and Expert modes, system queries', 'system') on conflict (name) do nothing`)
    const group = await one<{ id: string | number }>(
      tx,
      sql`select id from user_group where name = ${QUERY_ADMIN_GROUP}`,
    )
    for (const role of QUERY_ROLES) {
      await tx.execute(
        sql`insert into group_role (group_id, role_id) select ${group!.id}, id from role where name = ${role.name} on conflict do nothing`,
      )
    }
    await tx.execute(sql`insert into obol_secrets.bootstrap_state (name) values ('admins')`)
  })
  const state = await one<{ detail: number | null }>(
    db,
    sql`select detail from obol_secrets.bootstrap_state where name = 'admins'`,
  )
  if (state?.detail !== null && state?.detail !== undefined) {
    return { generated, ignoredClientSecret: await secretDiffers(db, config) }
  }
  // Claim the creation once: the instance that sets `detail` creates the accounts.
  const claimed = await one(
    db,
    sql`update obol_secrets.bootstrap_state set detail = 1 where name = 'admins' and detail is null returning name`,
  )
  if (!claimed) return { generated }
  const groups = ['Platform Admin', QUERY_ADMIN_GROUP]
  const clientExists = await one(db, sql`select id from oauth_client where client_id = ${config.adminClientId}`)
  if (!clientExists) {
    const secret = config.adminClientSecret ?? randomSecret()
    await iam.createClient(
      { clientId: config.adminClientId, description: 'Bootstrap administrator', groups, secret },
      'system',
    )
    if (!config.adminClientSecret) {
      generated.clientId = config.adminClientId
      generated.clientSecret = secret
    }
  }
  const userExists = await one(db, sql`select id from app_user where username = ${config.adminUsername}`)
  if (!userExists) {
    const password = config.adminPassword ?? randomSecret(12)
    await iam.createUser({ username: config.adminUsername, password, groups }, 'system')
    if (!config.adminPassword) {
      generated.username = config.adminUsername
      generated.password = password
    }
  }
  return { generated }
}

async function secretDiffers(db: Db, config: AuthConfig): Promise<boolean> {
  if (!config.adminClientSecret) return false
  const stored = await one<{ secret_hash: string }>(
    db,
    sql`select s.secret_hash from oauth_client c join obol_secrets.client_secret s on s.client_id = c.id
      where c.client_id = ${config.adminClientId}`,
  )
  return stored !== undefined && !(await verifySecret(config.adminClientSecret, stored.secret_hash))
}
