import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { actorOf } from '../../kernel/http/actor.ts'
import { NoContent } from '../../kernel/http/schemas.ts'
import type { IamService } from './iam.service.ts'
import {
  Group,
  GroupInput,
  GroupList,
  GroupUpdate,
  MemberInput,
  MemberParams,
  NameParams,
  RoleList,
} from './iam.schemas.ts'
/** Roles and groups: the role catalogue, groups, their roles and members. */
export function registerRoleAndGroupRoutes(server: FastifyInstance, iam: IamService): void {
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
}
