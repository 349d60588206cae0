import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { instantText, textArray } from '../../kernel/model/json.ts'
import { ALL_ROLES, BUILT_IN_GROUPS } from './role-catalog.ts'
import { hashSecret, randomSecret } from './secrets.ts'
import type { Static } from 'typebox'
import type { Client, Group, User } from './iam.schemas.ts'

export type GroupView = Static<typeof Group>
export type UserView = Static<typeof User>
export type ClientView = Static<typeof Client>

export interface GroupInput {
  name?: string
  description?: string | null
  roles?: string[]
  sellerCodes?: string[] | null
}

const BUILT_IN_NAMES = new Set(BUILT_IN_GROUPS.map((g) => g.name))

const stamp = (value: SQL) => instantText(value)

/** Roles, groups, users and service-account clients. Roles come to users only through groups. */
export class IamService {
  private readonly db: Db

  constructor(db: Db) {
    this.db = db
  }

  /** Writes the code's role catalog and built-in groups: idempotent, safe with instances starting together. */
  async syncCatalog(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(7262003)`)
      for (const role of ALL_ROLES) {
        await tx.execute(sql`insert into role (name, domain, resource, scope, description)
          values (${role.name}, ${role.domain}, ${role.resource}, ${role.scope}, ${role.description})
          on conflict (name) do update set description = excluded.description`)
      }
      for (const group of BUILT_IN_GROUPS) {
        const created = await one<{ id: string | number }>(
          tx,
          sql`insert into user_group (name, description, built_in, creator) values (${group.name}, ${group.description}, true, 'system')
            on conflict (name) do update set built_in = true returning id`,
        )
        const id = Number(created!.id)
        // The role set of a built-in group is the document's, whatever happened before.
        await tx.execute(
          sql`delete from group_role where group_id = ${id} and role_id not in (select id from role where name = any(${textArray(group.roles)}))`,
        )
        await tx.execute(sql`insert into group_role (group_id, role_id) select ${id}, id from role where name = any(${textArray(group.roles)})
          on conflict do nothing`)
      }
    })
  }

  async listRoles() {
    const data = await rows<{
      name: string
      domain: string | null
      resource: string | null
      scope: string | null
      description: string
    }>(
      this.db,
      sql`select name, domain, resource, scope, description from role order by domain nulls last, resource, scope, name`,
    )
    return { total: data.length, data }
  }

  private async groupId(tx: Db, name: string, lock = false): Promise<{ id: number; builtIn: boolean }> {
    const found = await one<{ id: string | number; built_in: boolean }>(
      tx,
      lock
        ? sql`select id, built_in from user_group where name = ${name} for update`
        : sql`select id, built_in from user_group where name = ${name}`,
    )
    if (!found) throw new AppError('ENTITY_NOT_FOUND', `Group ${name} not found`)
    return { id: Number(found.id), builtIn: found.built_in }
  }

  async getGroup(name: string, tx: Db = this.db): Promise<GroupView> {
    const group = await one<Omit<GroupView, 'roles' | 'members' | 'id'> & { id: string | number }>(
      tx,
      sql`select id, name, description, built_in as "builtIn", seller_codes as "sellerCodes",
        json_build_object('created', ${stamp(sql`created`)}, 'updated', ${stamp(sql`updated`)}, 'creator', creator, 'updater', updater) as auditable
        from user_group where name = ${name}`,
    )
    if (!group) throw new AppError('ENTITY_NOT_FOUND', `Group ${name} not found`)
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

  async listGroups(): Promise<{ total: number; data: GroupView[] }> {
    const names = await rows<{ name: string }>(this.db, sql`select name from user_group order by built_in desc, name`)
    const data: GroupView[] = []
    for (const { name } of names) data.push(await this.getGroup(name))
    return { total: data.length, data }
  }

  private async checkInput(tx: Db, input: GroupInput): Promise<void> {
    const problems: ErrorDetail[] = []
    if (input.roles) {
      const known = new Set(
        (await rows<{ name: string }>(tx, sql`select name from role where name = any(${textArray(input.roles)})`)).map(
          (r) => r.name,
        ),
      )
      const unknown = input.roles.filter((r) => !known.has(r))
      if (unknown.length > 0) problems.push({ field: 'roles', message: `unknown roles: ${unknown.join(', ')}` })
    }
    if (input.sellerCodes) {
      const known = new Set(
        (
          await rows<{ code: string }>(
            tx,
            sql`select code from seller where code = any(${textArray(input.sellerCodes)})`,
          )
        ).map((r) => r.code),
      )
      const unknown = input.sellerCodes.filter((c) => !known.has(c))
      if (unknown.length > 0) problems.push({ field: 'sellerCodes', message: `unknown sellers: ${unknown.join(', ')}` })
    }
    if (problems.length > 0) throw validationError(problems)
  }

  private async setRoles(tx: Db, groupId: number, roleNames: readonly string[]): Promise<void> {
    await tx.execute(sql`delete from group_role where group_id = ${groupId}`)
    await tx.execute(
      sql`insert into group_role (group_id, role_id) select ${groupId}, id from role where name = any(${textArray(roleNames)})`,
    )
  }

  async createGroup(input: Required<Pick<GroupInput, 'name'>> & GroupInput, actor: string): Promise<GroupView> {
    try {
      return await this.db.transaction(async (tx) => {
        await this.checkInput(tx, input)
        const created = await one<{ id: string | number }>(
          tx,
          sql`insert into user_group (name, description, seller_codes, creator)
            values (${input.name}, ${input.description ?? null}, ${input.sellerCodes ? textArray(input.sellerCodes) : null}, ${actor}) returning id`,
        )
        await this.setRoles(tx, Number(created!.id), input.roles ?? [])
        return this.getGroup(input.name, tx)
      })
    } catch (error) {
      if (pgErrorOf(error)?.code === '23505')
        throw new AppError('ENTITY_ALREADY_EXISTS', `Group ${input.name} already exists`)
      throw error
    }
  }

  async updateGroup(name: string, input: GroupInput, actor: string): Promise<GroupView> {
    try {
      return await this.db.transaction(async (tx) => {
        const group = await this.groupId(tx, name, true)
        if (group.builtIn) {
          if (input.name !== undefined && input.name !== name) {
            throw new AppError('ENTITY_IN_USE', `Group ${name} is built in: its name cannot change`)
          }
          if (input.roles !== undefined) {
            const current = (await this.getGroup(name, tx)).roles
            const same = current.length === new Set(input.roles).size && input.roles.every((r) => current.includes(r))
            if (!same) throw new AppError('ENTITY_IN_USE', `Group ${name} is built in: its roles cannot change`)
          }
        }
        await this.checkInput(tx, input)
        const sets = [sql`updated = now()`, sql`updater = ${actor}`]
        if (input.name !== undefined) sets.push(sql`name = ${input.name}`)
        if (input.description !== undefined) sets.push(sql`description = ${input.description}`)
        if (input.sellerCodes !== undefined)
          sets.push(sql`seller_codes = ${input.sellerCodes ? textArray(input.sellerCodes) : null}`)
        await tx.execute(sql`update user_group set ${sql.join(sets, sql`, `)} where id = ${group.id}`)
        if (input.roles !== undefined && !group.builtIn) await this.setRoles(tx, group.id, input.roles)
        return this.getGroup(input.name ?? name, tx)
      })
    } catch (error) {
      if (pgErrorOf(error)?.code === '23505')
        throw new AppError('ENTITY_ALREADY_EXISTS', `Group ${input.name ?? name} already exists`)
      throw error
    }
  }

  async deleteGroup(name: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const group = await this.groupId(tx, name, true)
      if (group.builtIn || BUILT_IN_NAMES.has(name))
        throw new AppError('ENTITY_IN_USE', `Group ${name} is built in and cannot be deleted`)
      await tx.execute(sql`delete from user_group where id = ${group.id}`)
    })
  }

  private async userId(tx: Db, username: string): Promise<number> {
    const found = await one<{ id: string | number }>(tx, sql`select id from app_user where username = ${username}`)
    if (!found) throw new AppError('ENTITY_NOT_FOUND', `User ${username} not found`)
    return Number(found.id)
  }

  async addMember(groupName: string, username: string): Promise<GroupView> {
    return this.db.transaction(async (tx) => {
      const group = await this.groupId(tx, groupName)
      const userId = await this.userId(tx, username).catch(() => {
        throw validationError([{ field: 'username', message: `no user or service account named '${username}'` }])
      })
      await tx.execute(
        sql`insert into group_member (group_id, user_id) values (${group.id}, ${userId}) on conflict do nothing`,
      )
      return this.getGroup(groupName, tx)
    })
  }

  async removeMember(groupName: string, username: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const group = await this.groupId(tx, groupName)
      const userId = await this.userId(tx, username)
      const removed = await rows(
        tx,
        sql`delete from group_member where group_id = ${group.id} and user_id = ${userId} returning id`,
      )
      if (removed.length === 0)
        throw new AppError('ENTITY_NOT_FOUND', `User ${username} is not a member of ${groupName}`)
    })
  }

  // Users

  private userColumns = sql`u.id, u.username, u.email, u.enabled, u.service_account as "serviceAccount",
    coalesce((select json_agg(g.name order by g.name) from group_member m join user_group g on g.id = m.group_id where m.user_id = u.id), '[]') as groups,
    json_build_object('created', ${stamp(sql`u.created`)}, 'updated', ${stamp(sql`u.updated`)}, 'creator', u.creator, 'updater', u.updater) as auditable`

  async getUser(username: string, tx: Db = this.db): Promise<UserView> {
    const user = await one<Omit<UserView, 'id'> & { id: string | number }>(
      tx,
      sql`select ${this.userColumns} from app_user u where u.username = ${username}`,
    )
    if (!user) throw new AppError('ENTITY_NOT_FOUND', `User ${username} not found`)
    return { ...user, id: Number(user.id) }
  }

  async listUsers(page: { offset: number; limit: number }) {
    const data = await rows<Omit<UserView, 'id'> & { id: string | number }>(
      this.db,
      sql`select ${this.userColumns} from app_user u order by u.username limit ${page.limit} offset ${page.offset}`,
    )
    const total = await one<{ n: string }>(this.db, sql`select count(*)::text as n from app_user`)
    return {
      total: Number(total?.n ?? 0),
      offset: page.offset,
      limit: page.limit,
      data: data.map((u) => ({ ...u, id: Number(u.id) })),
    }
  }

  private async setMemberships(tx: Db, userId: number, groups: readonly string[]): Promise<void> {
    const found = await rows<{ id: string | number; name: string }>(
      tx,
      sql`select id, name from user_group where name = any(${textArray(groups)})`,
    )
    const unknown = groups.filter((g) => !found.some((f) => f.name === g))
    if (unknown.length > 0)
      throw validationError([{ field: 'groups', message: `unknown groups: ${unknown.join(', ')}` }])
    await tx.execute(sql`delete from group_member where user_id = ${userId}`)
    for (const g of found)
      await tx.execute(sql`insert into group_member (group_id, user_id) values (${g.id}, ${userId})`)
  }

  async createUser(
    input: { username: string; email?: string | null; password: string; enabled?: boolean; groups?: string[] },
    actor: string,
    options: { serviceAccount?: boolean; tx?: Db } = {},
  ) {
    const hash = await hashSecret(input.password)
    const run = async (tx: Db) => {
      const created = await one<{ id: string | number }>(
        tx,
        sql`insert into app_user (username, email, enabled, service_account, creator)
          values (${input.username}, ${input.email ?? null}, ${input.enabled ?? true}, ${options.serviceAccount ?? false}, ${actor}) returning id`,
      )
      const id = Number(created!.id)
      if (!options.serviceAccount) {
        await tx.execute(sql`insert into obol_secrets.user_credential (user_id, password_hash) values (${id}, ${hash})`)
      }
      if (input.groups) await this.setMemberships(tx, id, input.groups)
      return id
    }
    try {
      if (options.tx) await run(options.tx)
      else await this.db.transaction(run)
    } catch (error) {
      if (pgErrorOf(error)?.code === '23505')
        throw new AppError('ENTITY_ALREADY_EXISTS', `User ${input.username} already exists`)
      throw error
    }
    return this.getUser(input.username, options.tx)
  }

  async updateUser(
    username: string,
    input: { email?: string | null; password?: string; enabled?: boolean; groups?: string[] },
    actor: string,
  ) {
    const hash = input.password === undefined ? undefined : await hashSecret(input.password)
    return this.db.transaction(async (tx) => {
      const id = await this.userId(tx, username)
      const sets = [sql`updated = now()`, sql`updater = ${actor}`]
      if (input.email !== undefined) sets.push(sql`email = ${input.email}`)
      if (input.enabled !== undefined) sets.push(sql`enabled = ${input.enabled}`)
      await tx.execute(sql`update app_user set ${sql.join(sets, sql`, `)} where id = ${id}`)
      if (hash !== undefined) {
        await tx.execute(sql`insert into obol_secrets.user_credential (user_id, password_hash) values (${id}, ${hash})
          on conflict (user_id) do update set password_hash = excluded.password_hash, updated_at = now()`)
      }
      if (input.groups) await this.setMemberships(tx, id, input.groups)
      return this.getUser(username, tx)
    })
  }

  async deleteUser(username: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const id = await this.userId(tx, username)
      const client = await one(tx, sql`select client_id from oauth_client where user_id = ${id}`)
      if (client)
        throw new AppError('ENTITY_IN_USE', `User ${username} is a service account: delete its client instead`)
      await tx.execute(sql`delete from app_user where id = ${id}`)
    })
  }

  /** The user of a username and password, when both match and the user is enabled. */
  async passwordUser(username: string): Promise<{ id: number; username: string; hash: string } | undefined> {
    const found = await one<{ id: string | number; username: string; hash: string }>(
      this.db,
      sql`select u.id, u.username, c.password_hash as hash from app_user u join obol_secrets.user_credential c on c.user_id = u.id
        where u.username = ${username} and u.enabled`,
    )
    return found ? { ...found, id: Number(found.id) } : undefined
  }

  // Clients

  private clientColumns = sql`c.id, c.client_id as "clientId", c.description, c.enabled, u.username as "serviceAccountUser",
    coalesce((select json_agg(g.name order by g.name) from group_member m join user_group g on g.id = m.group_id where m.user_id = u.id), '[]') as groups,
    json_build_object('created', ${stamp(sql`c.created`)}, 'updated', ${stamp(sql`c.updated`)}, 'creator', c.creator, 'updater', c.updater) as auditable`

  async getClient(clientId: string, tx: Db = this.db): Promise<ClientView> {
    const client = await one<Omit<ClientView, 'id'> & { id: string | number }>(
      tx,
      sql`select ${this.clientColumns} from oauth_client c join app_user u on u.id = c.user_id where c.client_id = ${clientId}`,
    )
    if (!client) throw new AppError('ENTITY_NOT_FOUND', `Client ${clientId} not found`)
    return { ...client, id: Number(client.id) }
  }

  async listClients() {
    const data = await rows<Omit<ClientView, 'id'> & { id: string | number }>(
      this.db,
      sql`select ${this.clientColumns} from oauth_client c join app_user u on u.id = c.user_id order by c.client_id`,
    )
    return { total: data.length, data: data.map((c) => ({ ...c, id: Number(c.id) })) }
  }

  /** Creates a client and its service-account user; the secret is returned here and never again. */
  async createClient(
    input: { clientId?: string; description?: string | null; groups?: string[]; secret?: string },
    actor: string,
  ) {
    const clientId = input.clientId ?? `client-${randomSecret(6).toLowerCase()}`
    const secret = input.secret ?? randomSecret()
    const hash = await hashSecret(secret)
    try {
      await this.db.transaction(async (tx) => {
        const user = await one<{ id: string | number }>(
          tx,
          sql`insert into app_user (username, service_account, creator) values (${`service-account-${clientId}`}, true, ${actor}) returning id`,
        )
        const userId = Number(user!.id)
        const client = await one<{ id: string | number }>(
          tx,
          sql`insert into oauth_client (client_id, description, user_id, creator) values (${clientId}, ${input.description ?? null}, ${userId}, ${actor}) returning id`,
        )
        await tx.execute(
          sql`insert into obol_secrets.client_secret (client_id, secret_hash) values (${client!.id}, ${hash})`,
        )
        if (input.groups) await this.setMemberships(tx, userId, input.groups)
      })
    } catch (error) {
      if (pgErrorOf(error)?.code === '23505')
        throw new AppError('ENTITY_ALREADY_EXISTS', `Client ${clientId} already exists`)
      throw error
    }
    return { ...(await this.getClient(clientId)), clientSecret: secret }
  }

  async updateClient(
    clientId: string,
    input: { description?: string | null; enabled?: boolean; groups?: string[] },
    actor: string,
  ) {
    return this.db.transaction(async (tx) => {
      const client = await one<{ id: string | number; user_id: string | number }>(
        tx,
        sql`select id, user_id from oauth_client where client_id = ${clientId} for update`,
      )
      if (!client) throw new AppError('ENTITY_NOT_FOUND', `Client ${clientId} not found`)
      const sets = [sql`updated = now()`, sql`updater = ${actor}`]
      if (input.description !== undefined) sets.push(sql`description = ${input.description}`)
      if (input.enabled !== undefined) sets.push(sql`enabled = ${input.enabled}`)
      await tx.execute(sql`update oauth_client set ${sql.join(sets, sql`, `)} where id = ${client.id}`)
      if (input.groups) await this.setMemberships(tx, Number(client.user_id), input.groups)
      return this.getClient(clientId, tx)
    })
  }

  async rotateClientSecret(clientId: string) {
    const secret = randomSecret()
    const hash = await hashSecret(secret)
    const updated = await rows(
      this.db,
      sql`update obol_secrets.client_secret s set secret_hash = ${hash}, updated_at = now() from oauth_client c
        where c.id = s.client_id and c.client_id = ${clientId} returning s.client_id`,
    )
    if (updated.length === 0) throw new AppError('ENTITY_NOT_FOUND', `Client ${clientId} not found`)
    return { ...(await this.getClient(clientId)), clientSecret: secret }
  }

  async deleteClient(clientId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const client = await one<{ id: string | number; user_id: string | number }>(
        tx,
        sql`select id, user_id from oauth_client where client_id = ${clientId} for update`,
      )
      if (!client) throw new AppError('ENTITY_NOT_FOUND', `Client ${clientId} not found`)
      await tx.execute(sql`delete from oauth_client where id = ${client.id}`)
      await tx.execute(sql`delete from app_user where id = ${client.user_id}`)
    })
  }
}
