import type { Caller } from '../caller.ts'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { principalOf } from '../http/principal.ts'
import { CodeParams, ListQuery, NoContent } from '../http/schemas.ts'
import type { SellerCodes } from '../model/row-security.ts'
import type { Resource } from './resource.model.ts'
import type { ResourceService } from './resource.service.ts'
import { resourceSchemas } from './resource.schemas.ts'

export type ActorOf = (request: unknown) => Pick<Caller, 'username'>

/** The caller's seller restriction, applied by the service to every read and write of a business entity. */
const sellersOf = (request: FastifyRequest): SellerCodes => principalOf(request).sellerCodes

/**
 * The five routes of a plain v1 resource. Thin: validate, authorize (policy), call the service. Operations are named
 * `create<Entity>`, `list<Path>`, `get<Entity>`, `update<Entity>`, `delete<Entity>`; schemas `<Entity>`,
 * `<Entity>Input`, `<Entity>Update`, `<Entity>Page`.
 */
export function registerResourceRoutes(server: FastifyInstance, service: ResourceService, actorOf: ActorOf): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const resource: Resource = service.resource
  const base = `/api/v1/${resource.path}`
  const view = { policy: { role: `${resource.roleResource}.view` } }
  const manage = { policy: { role: `${resource.roleResource}.manage` } }
  const name = resource.def.name
  const plural = resource.path.charAt(0).toUpperCase() + resource.path.slice(1)
  const tags = [name]
  const schemas = resourceSchemas(resource)

  app.post(
    base,
    {
      config: manage,
      schema: {
        tags,
        operationId: `create${name}`,
        summary: `Create a ${resource.label}`,
        body: schemas.input,
        response: { 201: schemas.record },
      },
    },
    async (request, reply) => {
      const created = await service.create(request.body, actorOf(request), sellersOf(request))
      return reply.status(201).send(created)
    },
  )
  app.get(
    base,
    {
      config: view,
      schema: {
        tags,
        operationId: `list${plural}`,
        summary: `List ${resource.label}s, paginated`,
        querystring: ListQuery,
        response: { 200: schemas.page },
      },
    },
    async (request) => service.list(request.query, sellersOf(request)),
  )
  app.get(
    `${base}/:code`,
    {
      config: view,
      schema: {
        tags,
        operationId: `get${name}`,
        summary: `Get a ${resource.label} by code`,
        params: CodeParams,
        response: { 200: schemas.record },
      },
    },
    async (request) => service.get(request.params.code, sellersOf(request)),
  )
  app.put(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        operationId: `update${name}`,
        summary: `Update a ${resource.label} (partial: only the fields sent change; null clears an optional field)`,
        params: CodeParams,
        body: schemas.update,
        response: { 200: schemas.record },
      },
    },
    async (request) => service.update(request.params.code, request.body, actorOf(request), sellersOf(request)),
  )
  app.delete(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        operationId: `delete${name}`,
        summary: `Delete a ${resource.label} (409 while other records reference it)`,
        params: CodeParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await service.delete(request.params.code, sellersOf(request))
      return reply.status(204).send(null)
    },
  )
}
