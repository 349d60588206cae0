import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { actorOf } from '../../kernel/http/actor.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import { NoContent } from '../../kernel/http/schemas.ts'
import type { IamService } from './iam.service.ts'
import {
  Client,
  ClientIdParams,
  ClientInput,
  ClientList,
  ClientUpdate,
  ClientWithSecret,
  Group,
  GroupInput,
  GroupList,
  GroupUpdate,
  MemberInput,
  MemberParams,
  NameParams,
  PageQuery,
  RoleList,
  Session,
  User,
  UserInput,
  UsernameParams,
  UserPage,
  UserUpdate,
} from './iam.schemas.ts'

/** Roles, groups, users, clients and the caller's session. */
export function registerIamRoutes(
  server: FastifyInstance,
  iam: IamService,
  realm: string,
  tenantDay: () => Promise<{ today: string; timeZone: string }>,
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const role = (r: string) => ({ policy: { role: r } })
  const actor = (request: unknown) => actorOf(request).username

  app.get(
    '/api/v1/roles',
    {
      config: role('api.roles.view'),
      schema: {
        tags: ['Roles'],
        summary: 'The role catalog (73 roles plus the query roles)',
        response: { 200: RoleList },
      },
    },
    async () => iam.listRoles(),
  )

  const groups = ['Groups']
  app.get(
    '/api/v1/groups',
    {
      config: role('api.groups.view'),
      schema: { tags: groups, summary: 'List groups with roles and members', response: { 200: GroupList } },
    },
    async () => iam.listGroups(),
  )
  app.post(
    '/api/v1/groups',
    {
      config: role('api.groups.manage'),
      schema: {
        tags: groups,
        summary: 'Create a custom group',
        body: GroupInput,
        response: { 201: Group },
      },
    },
    async (request, reply) => reply.status(201).send(await iam.createGroup(request.body, actor(request))),
  )
  app.get(
    '/api/v1/groups/:name',
    {
      config: role('api.groups.view'),
      schema: { tags: groups, summary: 'Get a group', params: NameParams, response: { 200: Group } },
    },
    async (request) => iam.getGroup(request.params.name),
  )
  app.put(
    '/api/v1/groups/:name',
    {
      config: role('api.groups.manage'),
      schema: {
        tags: groups,
        summary:
          'Update a group (partial): name, description, roles, seller codes; built-in groups keep name and roles (409)',
        params: NameParams,
        body: GroupUpdate,
        response: { 200: Group },
      },
    },
    async (request) => iam.updateGroup(request.params.name, request.body, actor(request)),
  )
  app.delete(
    '/api/v1/groups/:name',
    {
      config: role('api.groups.manage'),
      schema: {
        tags: groups,
        summary: 'Delete a custom group (built-in groups: 409)',
        params: NameParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await iam.deleteGroup(request.params.name)
      return reply.status(204).send(null)
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
        params: NameParams,
        body: MemberInput,
        response: { 200: Group },
      },
    },
    async (request) => iam.addMember(request.params.name, request.body.username),
  )
  app.delete(
    '/api/v1/groups/:name/members/:username',
    {
      config: role('api.groups.manage'),
      schema: {
        operationId: 'removeGroupMember',
        tags: groups,
        summary: 'Remove a member from a group',
        params: MemberParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const { name, username } = request.params
      await iam.removeMember(name, username)
      return reply.status(204).send(null)
    },
  )

  const users = ['Users']
  app.get(
    '/api/v1/users',
    {
      config: role('api.users.view'),
      schema: {
        tags: users,
        summary: 'List users and service accounts',
        querystring: PageQuery,
        response: { 200: UserPage },
      },
    },
    async (request) => iam.listUsers(request.query),
  )
  app.post(
    '/api/v1/users',
    {
      config: role('api.users.manage'),
      schema: {
        tags: users,
        summary: 'Create a human user (password hashed with scrypt; roles come from groups)',
        body: UserInput,
        response: { 201: User },
      },
    },
    async (request, reply) => reply.status(201).send(await iam.createUser(request.body, actor(request))),
  )
  app.get(
    '/api/v1/users/:username',
    {
      config: role('api.users.view'),
      schema: { tags: users, summary: 'Get a user', params: UsernameParams, response: { 200: User } },
    },
    async (request) => iam.getUser(request.params.username),
  )
  app.put(
    '/api/v1/users/:username',
    {
      config: role('api.users.manage'),
      schema: {
        tags: users,
        summary: 'Update a user (partial): email, password, enabled, groups',
        description:
          'A new password ends the user’s portal sessions, except the session the change is made through (with a ' +
          'token from `/api/portal/token`).',
        params: UsernameParams,
        body: UserUpdate,
        response: { 200: User },
      },
    },
    async (request) =>
      iam.updateUser(request.params.username, request.body, actor(request), principalOf(request).portalSession),
  )
  app.delete(
    '/api/v1/users/:username',
    {
      config: role('api.users.manage'),
      schema: { tags: users, summary: 'Delete a user', params: UsernameParams, response: { 204: NoContent } },
    },
    async (request, reply) => {
      await iam.deleteUser(request.params.username)
      return reply.status(204).send(null)
    },
  )

  const clients = ['Clients']
  app.get(
    '/api/v1/clients',
    {
      config: role('api.security.view'),
      schema: { tags: clients, summary: 'List service-account clients', response: { 200: ClientList } },
    },
    async () => iam.listClients(),
  )
  app.post(
    '/api/v1/clients',
    {
      config: role('api.security.manage'),
      schema: {
        tags: clients,
        summary: 'Create a client and its service account; the secret is shown once, in this response',
        body: ClientInput,
        response: { 201: ClientWithSecret },
      },
    },
    async (request, reply) => reply.status(201).send(await iam.createClient(request.body, actor(request))),
  )
  app.get(
    '/api/v1/clients/:clientId',
    {
      config: role('api.security.view'),
      schema: {
        tags: clients,
        summary: 'Get a client (never its secret)',
        params: ClientIdParams,
        response: { 200: Client },
      },
    },
    async (request) => iam.getClient(request.params.clientId),
  )
  app.put(
    '/api/v1/clients/:clientId',
    {
      config: role('api.security.manage'),
      schema: {
        tags: clients,
        summary: 'Update a client (partial): description, enabled, groups',
        params: ClientIdParams,
        body: ClientUpdate,
        response: { 200: Client },
      },
    },
    async (request) => iam.updateClient(request.params.clientId, request.body, actor(request)),
  )
  app.post(
    '/api/v1/clients/:clientId/secret',
    {
      config: role('api.security.manage'),
      schema: {
        operationId: 'rotateClientSecret',
        tags: clients,
        summary: 'Rotate a client secret; the new secret is shown once',
        params: ClientIdParams,
        response: { 200: ClientWithSecret },
      },
    },
    async (request) => iam.rotateClientSecret(request.params.clientId),
  )
  app.delete(
    '/api/v1/clients/:clientId',
    {
      config: role('api.security.manage'),
      schema: {
        tags: clients,
        summary: 'Delete a client and its service account',
        params: ClientIdParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await iam.deleteClient(request.params.clientId)
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/api/v1/auth/session',
    {
      config: { policy: { authenticated: true } },
      schema: {
        operationId: 'getSession',
        tags: ['Authentication'],
        summary: "Who the bearer token says the caller is, and the tenant's today (its day in the tenant time zone)",
        response: { 200: Session },
      },
    },
    async (request) => {
      const principal = principalOf(request)
      return {
        subject: principal.subject,
        username: principal.username,
        clientId: principal.clientId ?? null,
        realm: principal.realm ?? realm,
        groups: [...principal.groups],
        roles: [...principal.roles].sort(),
        expiresAt: request.tokenExpiresAt?.toISOString() ?? null,
        tenant: await tenantDay(),
      }
    },
  )
}
