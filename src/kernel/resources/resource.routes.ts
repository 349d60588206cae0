import type { FastifyInstance, FastifyRequest } from 'fastify'
import { principalOf } from '../http/principal.ts'
import type { SellerCodes } from '../model/row-security.ts'
import type { Resource } from './resource.model.ts'
import type { ResourceService, Actor } from './resource.service.ts'
import { bodySchema, listSchema, recordSchema } from './resource.schemas.ts'

const codeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', minLength: 1, maxLength: 255 } },
}

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1 },
    sortBy: { type: 'string', maxLength: 100 },
    sortOrder: { type: 'string', maxLength: 20 },
  },
}

export type ActorOf = (request: unknown) => Actor

/** The caller's seller restriction, applied by the service to every read and write of a business entity. */
const sellersOf = (request: FastifyRequest): SellerCodes => principalOf(request).sellerCodes

/** The five routes of a plain v1 resource. Thin: validate, authorize (policy), call the service. */
export function registerResourceRoutes(app: FastifyInstance, service: ResourceService, actorOf: ActorOf): void {
  const resource: Resource = service.resource
  const base = `/api/v1/${resource.path}`
  const view = { policy: { role: `${resource.roleResource}.view` } }
  const manage = { policy: { role: `${resource.roleResource}.manage` } }
  const tags = [resource.def.name]
  const record = recordSchema(resource)
  const name = resource.def.name
  const plural = resource.path.charAt(0).toUpperCase() + resource.path.slice(1)

  app.post(
    base,
    {
      config: manage,
      schema: {
        tags,
        operationId: `create${name}`,
        summary: `Create a ${resource.label}`,
        body: bodySchema(resource, false),
        response: { 201: record },
      },
    },
    async (request, reply) => {
      const body = request.body as Record<string, unknown>
      const created = await service.create(body, actorOf(request), sellersOf(request))
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
        querystring: listQuery,
        response: { 200: listSchema(resource) },
      },
    },
    async (request) => service.list(request.query as Record<string, never>, sellersOf(request)),
  )
  app.get(
    `${base}/:code`,
    {
      config: view,
      schema: {
        tags,
        operationId: `get${name}`,
        summary: `Get a ${resource.label} by code`,
        params: codeParams,
        response: { 200: record },
      },
    },
    async (request) => service.get((request.params as { code: string }).code, sellersOf(request)),
  )
  app.put(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        operationId: `update${name}`,
        summary: `Update a ${resource.label} (partial: only the fields sent change; null clears an optional field)`,
        params: codeParams,
        body: bodySchema(resource, true),
        response: { 200: record },
      },
    },
    async (request) =>
      service.update(
        (request.params as { code: string }).code,
        request.body as Record<string, unknown>,
        actorOf(request),
        sellersOf(request),
      ),
  )
  app.delete(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        operationId: `delete${name}`,
        summary: `Delete a ${resource.label} (409 while other records reference it)`,
        params: codeParams,
      },
    },
    async (request, reply) => {
      await service.delete((request.params as { code: string }).code, sellersOf(request))
      return reply.status(204).send()
    },
  )
}
