import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { defaultPageLimit, pageOf, type PageRequest } from '../../kernel/http/pagination.ts'
import { ALL_ROLES, BUILT_IN_GROUPS } from './role-catalog.ts'
import { hashSecret, randomSecret } from './secrets.ts'
import type { ClientView, GroupInput, GroupView, UserView } from './iam.schemas.ts'
import * as repo from './iam.repository.ts'
import { endSessionsOf } from './portal.repository.ts'
import { knownSellerCodes } from '../accounts/index.ts'

export type { ClientView, GroupInput, GroupView, UserView }

export type IamService = ReturnType<typeof createIamService>

const BUILT_IN_NAMES = new Set(BUILT_IN_GROUPS.map((g) => g.name))

/** A unique-key violation (PostgreSQL code 23505) becomes ENTITY_ALREADY_EXISTS with `message`. */
async function uniquely<T>(message: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (pgErrorOf(error)?.code === '23505') throw new AppError('ENTITY_ALREADY_EXISTS', message)
    throw error
  }
}

/**
 * Roles, groups, users and service-account clients. Roles come to users only through groups; built-in groups keep
 * the name and roles the code gives them; a client is a service-account user plus a secret shown once.
 */
export function createIamService(deps: { db: Db }) {
  const { db } = deps

  async function groupId(tx: Db, name: string, lock = false): Promise<{ id: number; builtIn: boolean }> {
    const found = await repo.findGroupId(tx, name, lock)
    if (!found) throw new AppError('ENTITY_NOT_FOUND', `Group ${name} not found`)
    return found
  }

  async function getGroup(name: string, tx: Db = db): Promise<GroupView> {
    const group = await repo.findGroup(tx, name)
    if (!group) throw new AppError('ENTITY_NOT_FOUND', `Group ${name} not found`)
    return group
  }

  /** Every role and seller named must exist; all unknown ones are named in one answer. */
  async function checkInput(tx: Db, input: GroupInput, creating = false): Promise<void> {
    const problems: ErrorDetail[] = []
    // A group grants roles: one with none would be a name that does nothing (a custom group must keep one).
    if ((creating && input.roles === undefined) || input.roles?.length === 0)
      problems.push({ field: 'roles', message: 'a group needs at least one role' })
    if (input.roles) {
      const known = await repo.knownRoles(tx, input.roles)
      const unknown = input.roles.filter((r) => !known.has(r))
      if (unknown.length > 0) problems.push({ field: 'roles', message: `unknown roles: ${unknown.join(', ')}` })
    }
    if (input.sellerCodes) {
      const known = new Set(await knownSellerCodes(tx, input.sellerCodes))
      const unknown = input.sellerCodes.filter((c) => !known.has(c))
      if (unknown.length > 0) problems.push({ field: 'sellerCodes', message: `unknown sellers: ${unknown.join(', ')}` })
    }
    if (problems.length > 0) throw validationError(problems)
  }

  async function userId(tx: Db, username: string): Promise<number> {
    const found = await repo.findUserId(tx, username)
    if (found === undefined) throw new AppError('ENTITY_NOT_FOUND', `User ${username} not found`)
    return found
  }

  async function getUser(username: string, tx: Db = db): Promise<UserView> {
    const user = await repo.findUser(tx, username)
    if (!user) throw new AppError('ENTITY_NOT_FOUND', `User ${username} not found`)
    return user
  }

  /** The user's groups become exactly `groups`; an unknown group name refuses the whole change. */
  async function setMemberships(tx: Db, user: number, groups: readonly string[]): Promise<void> {
    const found = await repo.groupsNamed(tx, groups)
    const unknown = groups.filter((g) => !found.some((f) => f.name === g))
    if (unknown.length > 0)
      throw validationError([{ field: 'groups', message: `unknown groups: ${unknown.join(', ')}` }])
    await repo.setMemberships(
      tx,
      user,
      found.map((g) => g.id),
    )
  }

  async function getClient(clientId: string, tx: Db = db): Promise<ClientView> {
    const client = await repo.findClient(tx, clientId)
    if (!client) throw new AppError('ENTITY_NOT_FOUND', `Client ${clientId} not found`)
    return client
  }

  async function lockClient(tx: Db, clientId: string): Promise<{ id: number; userId: number }> {
    const client = await repo.lockClient(tx, clientId)
    if (!client) throw new AppError('ENTITY_NOT_FOUND', `Client ${clientId} not found`)
    return client
  }

  return {
    /** Writes the code's role catalog and built-in groups: idempotent, safe with instances starting together. */
    syncCatalog: () => repo.writeCatalog(db, ALL_ROLES, BUILT_IN_GROUPS),

    async listRoles() {
      const data = await repo.listRoles(db)
      return { total: data.length, data }
    },

    getGroup,

    async listGroups(): Promise<{ total: number; data: GroupView[] }> {
      const data: GroupView[] = []
      for (const name of await repo.groupNames(db)) data.push(await getGroup(name))
      return { total: data.length, data }
    },

    async createGroup(input: Required<Pick<GroupInput, 'name'>> & GroupInput, actor: string): Promise<GroupView> {
      return uniquely(`Group ${input.name} already exists`, () =>
        withTransaction(db, async (tx) => {
          await checkInput(tx, input, true)
          const id = await repo.insertGroup(tx, input, actor)
          await repo.setGroupRoles(tx, id, input.roles ?? [])
          return getGroup(input.name, tx)
        }),
      )
    },

    /** A partial change. A built-in group keeps its name and its roles (sending the same ones is no change). */
    async updateGroup(name: string, input: GroupInput, actor: string): Promise<GroupView> {
      return uniquely(`Group ${input.name ?? name} already exists`, () =>
        withTransaction(db, async (tx) => {
          const group = await groupId(tx, name, true)
          if (group.builtIn) {
            if (input.name !== undefined && input.name !== name) {
              throw new AppError('ENTITY_IN_USE', `Group ${name} is built in: its name cannot change`)
            }
            if (input.roles !== undefined) {
              const current = (await getGroup(name, tx)).roles
              const same = current.length === new Set(input.roles).size && input.roles.every((r) => current.includes(r))
              if (!same) throw new AppError('ENTITY_IN_USE', `Group ${name} is built in: its roles cannot change`)
            }
          }
          await checkInput(tx, input)
          await repo.updateGroupRow(tx, group.id, input, actor)
          if (input.roles !== undefined && !group.builtIn) await repo.setGroupRoles(tx, group.id, input.roles)
          return getGroup(input.name ?? name, tx)
        }),
      )
    },

    async deleteGroup(name: string): Promise<void> {
      await withTransaction(db, async (tx) => {
        const group = await groupId(tx, name, true)
        if (group.builtIn || BUILT_IN_NAMES.has(name))
          throw new AppError('ENTITY_IN_USE', `Group ${name} is built in and cannot be deleted`)
        await repo.deleteGroupRow(tx, group.id)
      })
    },

    async addMember(groupName: string, username: string): Promise<GroupView> {
      return withTransaction(db, async (tx) => {
        const group = await groupId(tx, groupName)
        const user = await userId(tx, username).catch(() => {
          throw validationError([{ field: 'username', message: `no user or service account named '${username}'` }])
        })
        await repo.addGroupMember(tx, group.id, user)
        return getGroup(groupName, tx)
      })
    },

    async removeMember(groupName: string, username: string): Promise<void> {
      await withTransaction(db, async (tx) => {
        const group = await groupId(tx, groupName)
        const user = await userId(tx, username)
        if (!(await repo.removeGroupMember(tx, group.id, user)))
          throw new AppError('ENTITY_NOT_FOUND', `User ${username} is not a member of ${groupName}`)
      })
    },

    // Users

    getUser,

    async listUsers(request: PageRequest) {
      const page = pageOf(request, await defaultPageLimit(db))
      const { total, data } = await repo.listUsers(db, page)
      return { total, offset: page.offset, limit: page.limit, data }
    },

    /** A person (with a password) or, with `serviceAccount`, a client's user (without one). */
    async createUser(
      input: { username: string; email?: string | null; password: string; enabled?: boolean; groups?: string[] },
      actor: string,
      options: { serviceAccount?: boolean; tx?: Db } = {},
    ) {
      const hash = await hashSecret(input.password)
      const serviceAccount = options.serviceAccount ?? false
      const run = async (tx: Db) => {
        const id = await repo.insertUser(tx, { ...input, serviceAccount }, actor)
        if (!serviceAccount) await repo.storePasswordHash(tx, id, hash)
        if (input.groups) await setMemberships(tx, id, input.groups)
        return id
      }
      await uniquely(`User ${input.username} already exists`, () =>
        options.tx ? run(options.tx) : withTransaction(db, run),
      )
      return getUser(input.username, options.tx)
    },

    /**
     * Partial update. A new password ends the user's portal sessions, all but `portalSession` (the session the
     * change was made through, when made with a portal token): whoever knew the old password is logged out.
     */
    async updateUser(
      username: string,
      input: { email?: string | null; password?: string; enabled?: boolean; groups?: string[] },
      actor: string,
      portalSession?: string,
    ) {
      const hash = input.password === undefined ? undefined : await hashSecret(input.password)
      return withTransaction(db, async (tx) => {
        const id = await userId(tx, username)
        await repo.updateUserRow(tx, id, input, actor)
        if (hash !== undefined) {
          await repo.storePasswordHash(tx, id, hash)
          await endSessionsOf(tx, id, portalSession)
        }
        if (input.groups) await setMemberships(tx, id, input.groups)
        return getUser(username, tx)
      })
    },

    /** A client's service account goes with its client, not on its own. */
    async deleteUser(username: string): Promise<void> {
      await withTransaction(db, async (tx) => {
        const id = await userId(tx, username)
        if (await repo.isClientUser(tx, id))
          throw new AppError('ENTITY_IN_USE', `User ${username} is a service account: delete its client instead`)
        await repo.deleteUserRow(tx, id)
      })
    },

    /** The user of a username and password, when both match and the user is enabled. */
    passwordUser: (username: string) => repo.findPasswordUser(db, username),

    // Clients

    getClient,

    async listClients() {
      const data = await repo.listClients(db)
      return { total: data.length, data }
    },

    /** Creates a client and its service-account user; the secret is returned here and never again. */
    async createClient(
      input: { clientId?: string; description?: string | null; groups?: string[]; secret?: string },
      actor: string,
    ) {
      const clientId = input.clientId ?? `client-${randomSecret(6).toLowerCase()}`
      const secret = input.secret ?? randomSecret()
      const secretHash = await hashSecret(secret)
      await uniquely(`Client ${clientId} already exists`, () =>
        withTransaction(db, async (tx) => {
          const user = await repo.insertUser(
            tx,
            { username: `service-account-${clientId}`, serviceAccount: true },
            actor,
          )
          await repo.insertClient(tx, { clientId, description: input.description, userId: user, secretHash }, actor)
          if (input.groups) await setMemberships(tx, user, input.groups)
        }),
      )
      return { ...(await getClient(clientId)), clientSecret: secret }
    },

    async updateClient(
      clientId: string,
      input: { description?: string | null; enabled?: boolean; groups?: string[] },
      actor: string,
    ) {
      return withTransaction(db, async (tx) => {
        const client = await lockClient(tx, clientId)
        await repo.updateClientRow(tx, client.id, input, actor)
        if (input.groups) await setMemberships(tx, client.userId, input.groups)
        return getClient(clientId, tx)
      })
    },

    /** A new secret, returned here and never again; the old one stops working at once. */
    async rotateClientSecret(clientId: string) {
      const secret = randomSecret()
      if (!(await repo.replaceClientSecret(db, clientId, await hashSecret(secret))))
        throw new AppError('ENTITY_NOT_FOUND', `Client ${clientId} not found`)
      return { ...(await getClient(clientId)), clientSecret: secret }
    },

    async deleteClient(clientId: string): Promise<void> {
      await withTransaction(db, async (tx) => {
        await repo.deleteClientRows(tx, await lockClient(tx, clientId))
      })
    },
  }
}
