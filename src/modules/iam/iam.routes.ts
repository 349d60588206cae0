import type { FastifyInstance } from 'fastify'
import { actorOf } from '../../kernel/http/actor.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import type { IamService, GroupInput } from './iam.service.ts'

const nameString = { type: 'string', minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$' }
const roleList = {
  type: 'array',
  maxItems: 200,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 100 },
}
const sellerList = {
  type: ['array', 'null'],
  maxItems: 500,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 255 },
}
const groupBody = (create: boolean) => ({
  type: 'object',
  additionalProperties: false,
  ...(create ? { required: ['name'] } : {}),
  properties: {
    name: nameString,
    description: { type: ['string', 'null'], maxLength: 2000 },
    roles: roleList,
    sellerCodes: sellerList,
  },
})
export const createGroupBody = groupBody(true)
const usernameString = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9_.@-]*$' }
const password = { type: 'string', minLength: 10, maxLength: 200 }
const groupNames = {
  type: 'array',
  maxItems: 100,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 100 },
}
const page = {
  type: 'object',
  additionalProperties: false,
  properties: {
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  },
}
const param = (name: string) => ({
  type: 'object',
  required: [name],
  properties: { [name]: { type: 'string', minLength: 1, maxLength: 255 } },
})

/** Roles, groups, users, clients and the caller's session. */
export function registerIamRoutes(app: FastifyInstance, iam: IamService, realm: string): void {
  const role = (r: string) => ({ policy: { role: r } })
  const actor = (request: unknown) => actorOf(request).username

  app.get(
    '/api/v1/roles',
    {
      config: role('api.roles.view'),
      schema: { tags: ['Roles'], summary: 'The role catalog (73 roles plus the query roles)' },
    },
    async () => iam.listRoles(),
  )

  const groups = ['Groups']
  app.get(
    '/api/v1/groups',
    { config: role('api.groups.view'), schema: { tags: groups, summary: 'List groups with roles and members' } },
    async () => iam.listGroups(),
  )
  app.post(
    '/api/v1/groups',
    {
      config: role('api.groups.manage'),
      schema: { tags: groups, summary: 'Create a custom group', body: createGroupBody },
    },
    async (request, reply) =>
      reply.status(201).send(await iam.createGroup(request.body as GroupInput & { name: string }, actor(request))),
  )
  app.get(
    '/api/v1/groups/:name',
    { config: role('api.groups.view'), schema: { tags: groups, summary: 'Get a group', params: param('name') } },
    async (request) => iam.getGroup((request.params as { name: string }).name),
  )
  app.put(
    '/api/v1/groups/:name',
    {
      config: role('api.groups.manage'),
      schema: {
        tags: groups,
        summary:
          'Update a group (partial): name, description, roles, seller codes; built-in groups keep name and roles (409)',
        params: param('name'),
        body: groupBody(false),
      },
    },
    async (request) =>
      iam.updateGroup((request.params as { name: string }).name, request.body as GroupInput, actor(request)),
  )
  app.delete(
    '/api/v1/groups/:name',
    {
      config: role('api.groups.manage'),
      schema: { tags: groups, summary: 'Delete a custom group (built-in groups: 409)', params: param('name') },
    },
    async (request, reply) => {
      await iam.deleteGroup((request.params as { name: string }).name)
      return reply.status(204).send()
    },
  )
  app.post(
    '/api/v1/groups/:name/members',
    {
      config: role('api.groups.manage'),
      schema: {
        operationId: 'addGroupMember',
        tags: groups,
        summary: 'Add a user or service account to a group',
        params: param('name'),
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['username'],
          properties: { username: { type: 'string', minLength: 1, maxLength: 200 } },
        },
      },
    },
    async (request) =>
      iam.addMember((request.params as { name: string }).name, (request.body as { username: string }).username),
  )
  app.delete(
    '/api/v1/groups/:name/members/:username',
    {
      config: role('api.groups.manage'),
      schema: {
        operationId: 'removeGroupMember',
        tags: groups,
        summary: 'Remove a member from a group',
        params: {
          type: 'object',
          required: ['name', 'username'],
          properties: { name: { type: 'string' }, username: { type: 'string' } },
        },
      },
    },
    async (request, reply) => {
      const { name, username } = request.params as { name: string; username: string }
      await iam.removeMember(name, username)
      return reply.status(204).send()
    },
  )

  const users = ['Users']
  app.get(
    '/api/v1/users',
    {
      config: role('api.users.view'),
      schema: { tags: users, summary: 'List users and service accounts', querystring: page },
    },
    async (request) => iam.listUsers(request.query as { offset: number; limit: number }),
  )
  app.post(
    '/api/v1/users',
    {
      config: role('api.users.manage'),
      schema: {
        tags: users,
        summary: 'Create a human user (password hashed with scrypt; roles come from groups)',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['username', 'password'],
          properties: {
            username: usernameString,
            email: { type: ['string', 'null'], format: 'email' },
            password,
            enabled: { type: 'boolean' },
            groups: groupNames,
          },
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await iam.createUser(request.body as { username: string; password: string }, actor(request))),
  )
  app.get(
    '/api/v1/users/:username',
    { config: role('api.users.view'), schema: { tags: users, summary: 'Get a user', params: param('username') } },
    async (request) => iam.getUser((request.params as { username: string }).username),
  )
  app.put(
    '/api/v1/users/:username',
    {
      config: role('api.users.manage'),
      schema: {
        tags: users,
        summary: 'Update a user (partial): email, password, enabled, groups',
        params: param('username'),
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            email: { type: ['string', 'null'], format: 'email' },
            password,
            enabled: { type: 'boolean' },
            groups: groupNames,
          },
        },
      },
    },
    async (request) =>
      iam.updateUser((request.params as { username: string }).username, request.body as object, actor(request)),
  )
  app.delete(
    '/api/v1/users/:username',
    { config: role('api.users.manage'), schema: { tags: users, summary: 'Delete a user', params: param('username') } },
    async (request, reply) => {
      await iam.deleteUser((request.params as { username: string }).username)
      return reply.status(204).send()
    },
  )

  const clients = ['Clients']
  const clientBody = (create: boolean) => ({
    type: 'object',
    additionalProperties: false,
    properties: {
      ...(create ? { clientId: usernameString } : { enabled: { type: 'boolean' } }),
      description: { type: ['string', 'null'], maxLength: 2000 },
      groups: groupNames,
    },
  })
  app.get(
    '/api/v1/clients',
    { config: role('api.security.view'), schema: { tags: clients, summary: 'List service-account clients' } },
    async () => iam.listClients(),
  )
  app.post(
    '/api/v1/clients',
    {
      config: role('api.security.manage'),
      schema: {
        tags: clients,
        summary: 'Create a client and its service account; the secret is shown once, in this response',
        body: clientBody(true),
      },
    },
    async (request, reply) => reply.status(201).send(await iam.createClient(request.body as object, actor(request))),
  )
  app.get(
    '/api/v1/clients/:clientId',
    {
      config: role('api.security.view'),
      schema: { tags: clients, summary: 'Get a client (never its secret)', params: param('clientId') },
    },
    async (request) => iam.getClient((request.params as { clientId: string }).clientId),
  )
  app.put(
    '/api/v1/clients/:clientId',
    {
      config: role('api.security.manage'),
      schema: {
        tags: clients,
        summary: 'Update a client (partial): description, enabled, groups',
        params: param('clientId'),
        body: clientBody(false),
      },
    },
    async (request) =>
      iam.updateClient((request.params as { clientId: string }).clientId, request.body as object, actor(request)),
  )
  app.post(
    '/api/v1/clients/:clientId/secret',
    {
      config: role('api.security.manage'),
      schema: {
        operationId: 'rotateClientSecret',
        tags: clients,
        summary: 'Rotate a client secret; the new secret is shown once',
        params: param('clientId'),
      },
    },
    async (request) => iam.rotateClientSecret((request.params as { clientId: string }).clientId),
  )
  app.delete(
    '/api/v1/clients/:clientId',
    {
      config: role('api.security.manage'),
      schema: { tags: clients, summary: 'Delete a client and its service account', params: param('clientId') },
    },
    async (request, reply) => {
      await iam.deleteClient((request.params as { clientId: string }).clientId)
      return reply.status(204).send()
    },
  )

  app.get(
    '/api/v1/auth/session',
    {
      config: { policy: { authenticated: true } },
      schema: {
        operationId: 'getSession',
        tags: ['Authentication'],
        summary: 'Who the bearer token says the caller is',
      },
    },
    async (request) => {
      const principal = principalOf(request)
      return {
        subject: principal.subject,
        username: principal.username,
        clientId: principal.clientId ?? null,
        realm,
        groups: principal.groups,
        roles: [...principal.roles].sort(),
        expiresAt: request.tokenExpiresAt?.toISOString() ?? null,
      }
    },
  )
}
