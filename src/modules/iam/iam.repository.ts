import { sql, type SQL } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import type { ClientView, GroupInput, GroupView, UserView } from './iam.schemas.ts'

/** The SQL of roles, groups, users, clients and their secrets. Ids come back as numbers; no rule is decided here. */

const stamp = (value: SQL) => instantText(value)
const auditable = (alias: string) => {
  const column = (name: string) => sql.raw(alias ? `${alias}.${name}` : name)
  return sql`json_build_object('created', ${stamp(column('created'))}, 'updated', ${stamp(column('updated'))}, 'creator', ${column('creator')}, 'updater', ${column('updater')}) as auditable`
}
const groupsOfUser = sql`coalesce((select json_agg(g.name order by g.name) from group_member m join user_group g on g.id = m.group_id where m.user_id = u.id), '[]') as groups`

/** The set list of an update: the stamp, then each column whose value is not undefined (unchanged). */
function changeSets(actor: string, columns: [column: string, value: unknown][]): SQL {
  const sets = [sql`updated = now()`, sql`updater = ${actor}`]
  for (const [column, value] of columns) if (value !== undefined) sets.push(sql`${sql.identifier(column)} = ${value}`)
  return sql.join(sets, sql`, `)
}

export interface CatalogRole {
  name: string
  domain: string | null
  resource: string | null
  scope: string | null
  description: string
}

/** Writes roles and built-in groups under one lock, so that instances starting together do not race. */
export async function writeCatalog(
  db: Db,
  roles: readonly CatalogRole[],
  groups: readonly { name: string; description: string; roles: readonly string[] }[],
): Promise<void> {
  await withTransaction(db, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7262003)`)
    for (const role of roles) {
      await tx.execute(sql`insert into role (name, domain, resource, scope, description)
        values (${role.name}, ${role.domain}, ${role.resource}, ${role.scope}, ${role.description})
        on conflict (name) do update set description = excluded.description`)
    }
    for (const group of groups) {
      const created = await one<{ id: string | number }>(
        tx,
        sql`insert into user_group (name, description, built_in, creator) values (${group.name}, ${group.description}, true, 'system')
          on conflict (name) do update set built_in = true returning id`,
      )
      const id = Number(created!.id)
      // The role set of a built-in group is the code's, whatever happened before.
      await tx.execute(
        sql`delete from group_role where group_id = ${id} and role_id not in (select id from role where name = any(${textArray(group.roles)}))`,
      )
      await tx.execute(sql`insert into group_role (group_id, role_id) select ${id}, id from role where name = any(${textArray(group.roles)})
        on conflict do nothing`)
    }
  })
}

export async function listRoles(db: Db): Promise<CatalogRole[]> {
  return rows<CatalogRole>(
    db,
    sql`select name, domain, resource, scope, description from role order by domain nulls last, resource, scope, name`,
  )
}

// Groups

export async function findGroupId(
  tx: Db,
  name: string,
  lock = false,
): Promise<{ id: number; builtIn: boolean } | undefined> {
  const found = await one<{ id: string | number; built_in: boolean }>(
    tx,
    lock
      ? sql`select id, built_in from user_group where name = ${name} for update`
      : sql`select id, built_in from user_group where name = ${name}`,
  )
  return found && { id: Number(found.id), builtIn: found.built_in }
}

export async function findGroup(tx: Db, name: string): Promise<GroupView | undefined> {
  const group = await one<Omit<GroupView, 'roles' | 'members' | 'id'> & { id: string | number }>(
    tx,
    sql`select id, name, description, built_in as "builtIn", seller_codes as "sellerCodes", ${auditable('')}
      from user_group where name = ${name}`,
  )
  if (!group) return undefined
  const id = Number(group.id)
  const roleRows = await rows<{ name: string }>(
    tx,
    sql`select r.name from group_role gr join role r on r.id = gr.role_id where gr.group_id = ${id} order by r.name`,
  )
  const members = await rows<{ username: string; serviceAccount: boolean }>(
    tx,
    sql`select u.username, u.service_account as "serviceAccount" from group_member m join app_user u on u.id = m.user_id
      where m.group_id = ${id} order by u.username`,
  )
  return { ...group, id, roles: roleRows.map((r) => r.name), members }
}

/** Group names, built-in groups first. */
export async function groupNames(db: Db): Promise<string[]> {
  return (await rows<{ name: string }>(db, sql`select name from user_group order by built_in desc, name`)).map(
    (r) => r.name,
  )
}

/** Of `names`, the roles that exist. */
export async function knownRoles(tx: Db, names: readonly string[]): Promise<Set<string>> {
  const found = await rows<{ name: string }>(tx, sql`select name from role where name = any(${textArray(names)})`)
  return new Set(found.map((r) => r.name))
}

export async function setGroupRoles(tx: Db, groupId: number, roleNames: readonly string[]): Promise<void> {
  await tx.execute(sql`delete from group_role where group_id = ${groupId}`)
  await tx.execute(
    sql`insert into group_role (group_id, role_id) select ${groupId}, id from role where name = any(${textArray(roleNames)})`,
  )
}

export async function insertGroup(
  tx: Db,
  input: { name: string; description?: string | null; sellerCodes?: string[] | null },
  actor: string,
): Promise<number> {
  const created = await one<{ id: string | number }>(
    tx,
    sql`insert into user_group (name, description, seller_codes, creator)
      values (${input.name}, ${input.description ?? null}, ${input.sellerCodes ? textArray(input.sellerCodes) : null}, ${actor}) returning id`,
  )
  return Number(created!.id)
}

/** Changes the fields of `change` that are not undefined, and stamps the change. */
export async function updateGroupRow(tx: Db, id: number, change: GroupInput, actor: string): Promise<void> {
  const sellerCodes = change.sellerCodes && textArray(change.sellerCodes)
  const sets = changeSets(actor, [
    ['name', change.name],
    ['description', change.description],
    ['seller_codes', sellerCodes],
  ])
  await tx.execute(sql`update user_group set ${sets} where id = ${id}`)
}

export async function deleteGroupRow(tx: Db, id: number): Promise<void> {
  await tx.execute(sql`delete from user_group where id = ${id}`)
}

export async function addGroupMember(tx: Db, groupId: number, userId: number): Promise<void> {
  await tx.execute(
    sql`insert into group_member (group_id, user_id) values (${groupId}, ${userId}) on conflict do nothing`,
  )
}

/** Whether the user was a member (and no longer is). */
export async function removeGroupMember(tx: Db, groupId: number, userId: number): Promise<boolean> {
  const removed = await rows(
    tx,
    sql`delete from group_member where group_id = ${groupId} and user_id = ${userId} returning id`,
  )
  return removed.length > 0
}

/** Groups of these names, as found. */
export async function groupsNamed(tx: Db, names: readonly string[]): Promise<{ id: number; name: string }[]> {
  const found = await rows<{ id: string | number; name: string }>(
    tx,
    sql`select id, name from user_group where name = any(${textArray(names)})`,
  )
  return found.map((g) => ({ id: Number(g.id), name: g.name }))
}

/** The user's groups become exactly `groupIds`. */
export async function setMemberships(tx: Db, userId: number, groupIds: readonly number[]): Promise<void> {
  await tx.execute(sql`delete from group_member where user_id = ${userId}`)
  for (const id of groupIds)
    await tx.execute(sql`insert into group_member (group_id, user_id) values (${id}, ${userId})`)
}

// Users

const userColumns = sql`u.id, u.username, u.email, u.enabled, u.service_account as "serviceAccount", ${groupsOfUser},
  ${auditable('u')}`

export async function findUserId(tx: Db, username: string): Promise<number | undefined> {
  const found = await one<{ id: string | number }>(tx, sql`select id from app_user where username = ${username}`)
  return found && Number(found.id)
}

export async function findUser(tx: Db, username: string): Promise<UserView | undefined> {
  const user = await one<Omit<UserView, 'id'> & { id: string | number }>(
    tx,
    sql`select ${userColumns} from app_user u where u.username = ${username}`,
  )
  return user && { ...user, id: Number(user.id) }
}

export async function listUsers(db: Db, page: { offset: number; limit: number }) {
  const data = await rows<Omit<UserView, 'id'> & { id: string | number }>(
    db,
    sql`select ${userColumns} from app_user u order by u.username limit ${page.limit} offset ${page.offset}`,
  )
  const total = await one<{ n: string }>(db, sql`select count(*)::text as n from app_user`)
  return { total: Number(total?.n ?? 0), data: data.map((u) => ({ ...u, id: Number(u.id) })) }
}

export async function insertUser(
  tx: Db,
  input: { username: string; email?: string | null; enabled?: boolean; serviceAccount: boolean },
  actor: string,
): Promise<number> {
  const created = await one<{ id: string | number }>(
    tx,
    sql`insert into app_user (username, email, enabled, service_account, creator)
      values (${input.username}, ${input.email ?? null}, ${input.enabled ?? true}, ${input.serviceAccount}, ${actor}) returning id`,
  )
  return Number(created!.id)
}

/** Sets (or replaces) a user's password hash. */
export async function storePasswordHash(tx: Db, userId: number, hash: string): Promise<void> {
  await tx.execute(sql`insert into obol_secrets.user_credential (user_id, password_hash) values (${userId}, ${hash})
    on conflict (user_id) do update set password_hash = excluded.password_hash, updated_at = now()`)
}

export async function updateUserRow(
  tx: Db,
  id: number,
  change: { email?: string | null; enabled?: boolean },
  actor: string,
): Promise<void> {
  const sets = changeSets(actor, [
    ['email', change.email],
    ['enabled', change.enabled],
  ])
  await tx.execute(sql`update app_user set ${sets} where id = ${id}`)
}

/** Whether the user is the service account of a client. */
export async function isClientUser(tx: Db, userId: number): Promise<boolean> {
  return (await one(tx, sql`select client_id from oauth_client where user_id = ${userId}`)) !== undefined
}

export async function deleteUserRow(tx: Db, id: number): Promise<void> {
  await tx.execute(sql`delete from app_user where id = ${id}`)
}

/** An enabled user with a password: its id, username and password hash. */
export async function findPasswordUser(
  db: Db,
  username: string,
): Promise<{ id: number; username: string; hash: string } | undefined> {
  const found = await one<{ id: string | number; username: string; hash: string }>(
    db,
    sql`select u.id, u.username, c.password_hash as hash from app_user u join obol_secrets.user_credential c on c.user_id = u.id
      where u.username = ${username} and u.enabled`,
  )
  return found && { ...found, id: Number(found.id) }
}

// Clients

const clientColumns = sql`c.id, c.client_id as "clientId", c.description, c.enabled, u.username as "serviceAccountUser",
  ${groupsOfUser}, ${auditable('c')}`

export async function findClient(tx: Db, clientId: string): Promise<ClientView | undefined> {
  const client = await one<Omit<ClientView, 'id'> & { id: string | number }>(
    tx,
    sql`select ${clientColumns} from oauth_client c join app_user u on u.id = c.user_id where c.client_id = ${clientId}`,
  )
  return client && { ...client, id: Number(client.id) }
}

export async function listClients(db: Db): Promise<ClientView[]> {
  const data = await rows<Omit<ClientView, 'id'> & { id: string | number }>(
    db,
    sql`select ${clientColumns} from oauth_client c join app_user u on u.id = c.user_id order by c.client_id`,
  )
  return data.map((c) => ({ ...c, id: Number(c.id) }))
}

/** A client row and its secret hash, for the service-account user `userId`. */
export async function insertClient(
  tx: Db,
  input: { clientId: string; description?: string | null; userId: number; secretHash: string },
  actor: string,
): Promise<void> {
  const client = await one<{ id: string | number }>(
    tx,
    sql`insert into oauth_client (client_id, description, user_id, creator) values (${input.clientId}, ${input.description ?? null}, ${input.userId}, ${actor}) returning id`,
  )
  await tx.execute(
    sql`insert into obol_secrets.client_secret (client_id, secret_hash) values (${client!.id}, ${input.secretHash})`,
  )
}

/** The client's row, locked for the rest of the transaction. */
export async function lockClient(tx: Db, clientId: string): Promise<{ id: number; userId: number } | undefined> {
  const client = await one<{ id: string | number; user_id: string | number }>(
    tx,
    sql`select id, user_id from oauth_client where client_id = ${clientId} for update`,
  )
  return client && { id: Number(client.id), userId: Number(client.user_id) }
}

export async function updateClientRow(
  tx: Db,
  id: number,
  change: { description?: string | null; enabled?: boolean },
  actor: string,
): Promise<void> {
  const sets = changeSets(actor, [
    ['description', change.description],
    ['enabled', change.enabled],
  ])
  await tx.execute(sql`update oauth_client set ${sets} where id = ${id}`)
}

/** Whether a client of this id existed (its secret hash is replaced). */
export async function replaceClientSecret(db: Db, clientId: string, hash: string): Promise<boolean> {
  const updated = await rows(
    db,
    sql`update obol_secrets.client_secret s set secret_hash = ${hash}, updated_at = now() from oauth_client c
      where c.id = s.client_id and c.client_id = ${clientId} returning s.client_id`,
  )
  return updated.length > 0
}

/** Deletes a client and its service-account user. */
export async function deleteClientRows(tx: Db, client: { id: number; userId: number }): Promise<void> {
  await tx.execute(sql`delete from oauth_client where id = ${client.id}`)
  await tx.execute(sql`delete from app_user where id = ${client.userId}`)
}

/** A user's roles (through their groups) and groups with their seller lists, by name. */
export async function grantRows(
  db: Db,
  userId: number,
): Promise<{ roles: string[]; groups: { name: string; sellerCodes: string[] | null }[] }> {
  const roleRows = await rows<{ name: string }>(
    db,
    sql`select distinct r.name from group_member m join group_role gr on gr.group_id = m.group_id
      join role r on r.id = gr.role_id where m.user_id = ${userId} order by r.name`,
  )
  const groupRows = await rows<{ name: string; seller_codes: string[] | null }>(
    db,
    sql`select g.name, g.seller_codes from group_member m join user_group g on g.id = m.group_id where m.user_id = ${userId} order by g.name`,
  )
  return {
    roles: roleRows.map((r) => r.name),
    groups: groupRows.map((g) => ({ name: g.name, sellerCodes: g.seller_codes })),
  }
}

/** An enabled user by username (a client's service account only while its client is enabled too). */
export async function findActiveUser(
  db: Db,
  username: string,
): Promise<{ userId: number; clientId: string | null } | undefined> {
  const found = await one<{ id: string | number; client_id: string | null }>(
    db,
    sql`select u.id, c.client_id from app_user u left join oauth_client c on c.user_id = u.id
      where u.username = ${username} and u.enabled and (c.id is null or c.enabled)`,
  )
  return found && { userId: Number(found.id), clientId: found.client_id }
}

/** The user and secret hash behind a client id, when the client and its user are enabled. */
export async function enabledClientCredentials(
  db: Db,
  clientId: string,
): Promise<{ userId: number; username: string; secretHash: string } | undefined> {
  const found = await one<{ user_id: string | number; username: string; secret_hash: string }>(
    db,
    sql`select c.user_id, u.username, s.secret_hash from oauth_client c join app_user u on u.id = c.user_id
      join obol_secrets.client_secret s on s.client_id = c.id
      where c.client_id = ${clientId} and c.enabled and u.enabled`,
  )
  return found && { userId: Number(found.user_id), username: found.username, secretHash: found.secret_hash }
}
