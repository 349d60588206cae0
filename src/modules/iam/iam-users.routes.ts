import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { actorOf } from '../../kernel/http/actor.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import { NoContent } from '../../kernel/http/schemas.ts'
import type { IamService } from './iam.service.ts'
import { PageQuery, User, UserInput, UsernameParams, UserPage, UserUpdate } from './iam.schemas.ts'
/** Users: people and service accounts, their groups. */
export function registerUserRoutes(server: FastifyInstance, iam: IamService): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const role = (r: string) => ({ policy: { role: r } })
  const actor = (request: unknown) => actorOf(request).username

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
}
