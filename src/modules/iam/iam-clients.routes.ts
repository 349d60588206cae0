import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { actorOf } from '../../kernel/http/actor.ts'
import { NoContent } from '../../kernel/http/schemas.ts'
import type { IamService } from './iam.service.ts'
import { Client, ClientIdParams, ClientInput, ClientList, ClientUpdate, ClientWithSecret } from './iam.schemas.ts'
/** OAuth clients: their groups and secrets. */
export function registerClientRoutes(server: FastifyInstance, iam: IamService): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const role = (r: string) => ({ policy: { role: r } })
  const actor = (request: unknown) => actorOf(request).username

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
}
