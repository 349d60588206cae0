import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import { Type } from 'typebox'
import { AppError } from '../../kernel/errors.ts'
import { errorResponses } from '../../kernel/http/schemas.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import type { QueryEngine } from './query.service.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import type { QueryRequest } from './request-parser.ts'
import { entityParamOf, type EntityIdParams, type EntityParams } from './query.schemas.ts'
import { requestFromLegacyBody, requestFromQueryParameters } from './request-parser.ts'
import * as schemas from './query.schemas.ts'
import { DEFAULT_DESCRIBE_DEPTH, MAX_DESCRIBE_DEPTH } from './opencell.model.ts'
import { productVersion } from './product-version.ts'

/** Lists records or gets one for `principal` and sends the answer (the v1 and Opencell routes). */
export type QueryHandler<Params> = (
  reply: FastifyReply,
  principal: Principal,
  params: Params,
  query: QueryRequest,
) => Promise<unknown>

/**
 * Opencell's generic API v2, read side, so that clients written for Opencell keep working unchanged:
 * under `/api/rest/v2/generic` and under Opencell's default context path `/opencell`. Every read is the Query API's
 * engine (same roles, row-level security, limits and errors); writes answer 405 naming the v1 resource to use.
 */
export const OPENCELL_PREFIXES = ['/api/rest/v2', '/opencell/api/rest/v2'] as const

// Reads only, whatever the method, as the Query API's routes: a POST here records no write position.
const entityView = { policy: { entityView: true as const }, reads: true as const }
const writes = ['PUT', 'PATCH', 'DELETE'] as const

/**
 * How an operation is named in the OpenAPI document. Both prefixes are documented, as both are served: the context
 * path's copies under their own tag, their operationIds ending `AtContextPath`. Reads also document their HEAD
 * (`config.swagger.exposeHeadRoute`; finishDocument names it `head…` and drops its bodies).
 */
function documented(prefix: string) {
  const alias = prefix !== OPENCELL_PREFIXES[0]
  return (operationId: string) => ({
    tags: [alias ? 'Opencell generic API v2 under /opencell' : 'Opencell generic API v2'],
    operationId: alias ? `${operationId}AtContextPath` : operationId,
  })
}
const read = { ...entityView, swagger: { exposeHeadRoute: true } }

const describeQuerystring = Type.Object(
  {
    depth: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: `Levels of related entities described (default ${DEFAULT_DESCRIBE_DEPTH}, at most ${MAX_DESCRIBE_DEPTH} are answered)`,
      }),
    ),
    filter: Type.Optional(
      Type.String({ maxLength: 200, description: 'Keep the fields whose name contains this, in any case' }),
    ),
  },
  { additionalProperties: false },
)

const fieldMapResponse = {
  description: 'One key per field and relation: { fullQualifiedTypeName, shortTypeName, isEntity, type, … }',
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: true },
}

const versionResponse = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'version', 'commit'],
    properties: { name: { type: 'string' }, version: { type: 'string' }, commit: { type: 'string' } },
  },
}

/** The v1 collection a write on `entity` belongs to, when the server has one (`/api/v1/customers`). */
function v1ResourceOf(request: FastifyRequest, engine: QueryEngine, token: string | undefined): string | undefined {
  if (token === undefined) return undefined
  const entity = engine.registry.find(token)
  if (!entity) return undefined
  const base = entity.token
  const candidates = [`${base}s`, `${base}es`, base.endsWith('y') ? `${base.slice(0, -1)}ies` : base]
  return candidates
    .map((plural) => `/api/v1/${plural}`)
    .find((url) => request.server.hasRoute({ method: 'POST', url }) || request.server.hasRoute({ method: 'GET', url }))
}

export function registerOpencellRoutes(
  plain: FastifyInstance,
  engine: QueryEngine,
  handlers: {
    list: QueryHandler<EntityParams>
    get: QueryHandler<EntityIdParams>
    listSchema: { params: typeof schemas.entityParams }
    getSchema: { params: typeof schemas.entityIdParams }
  },
): void {
  const scope = plain.withTypeProvider<TypeBoxTypeProvider>()
  const version = productVersion()

  const refuseWrite = (allow: string) => async (request: FastifyRequest) => {
    const token = entityParamOf(request.params)
    engine.assertCanQuery(principalOf(request), token)
    const resource = v1ResourceOf(request, engine, token)
    const instead = resource
      ? `write through the v1 resource ${resource}`
      : 'write through the entity’s v1 resource (see /api/docs)'
    throw new AppError(
      'METHOD_NOT_ALLOWED',
      `The Opencell generic API is read-only here: ${request.method} is not allowed (allowed: ${allow}); ${instead}`,
      { headers: { allow } },
    )
  }

  for (const prefix of OPENCELL_PREFIXES) {
    const doc = documented(prefix)
    const generic = `${prefix}/generic`

    for (const url of [`${prefix}/version`, `${generic}/version`]) {
      scope.get(
        url,
        {
          config: read,
          schema: {
            ...doc(url.endsWith('/generic/version') ? 'getGenericApiVersion' : 'getOpencellVersion'),
            summary: 'Product name, version and commit',
            response: { 200: versionResponse },
          },
        },
        async (request) => {
          engine.assertCanQuery(principalOf(request), undefined)
          return [version()]
        },
      )
    }
    scope.get(
      `${generic}/entities`,
      {
        config: read,
        schema: {
          ...doc('listGenericEntities'),
          summary: 'Entity names, as GET /api/v1/query/entities',
          querystring: schemas.entitiesQuerystring,
          response: { 200: schemas.entitiesResponse },
        },
      },
      async (request) => engine.entities(principalOf(request), request.query),
    )
    scope.get(
      `${generic}/entities/:entity`,
      {
        config: read,
        schema: {
          ...doc('describeGenericEntity'),
          summary: 'Fields and relations of an entity, as Opencell describes them (relations: isEntity "true")',
          params: schemas.entityParams,
          querystring: describeQuerystring,
          response: { 200: fieldMapResponse },
        },
      },
      async (request) => {
        const { depth, filter } = request.query
        return engine.opencellFields(principalOf(request), request.params.entity, {
          depth: depth ?? DEFAULT_DESCRIBE_DEPTH,
          filter,
        })
      },
    )
    scope.post(
      `${generic}/all/:entity`,
      {
        config: entityView,
        schema: {
          ...handlers.listSchema,
          ...doc('searchGenericRecords'),
          summary: 'List entities: same as POST /api/v1/query/{entity}, with fullTextFilter',
          body: schemas.legacyBody,
        },
      },
      async (request, reply) =>
        handlers.list(reply, principalOf(request), request.params, requestFromLegacyBody(request.body)),
    )
    scope.get(
      `${generic}/:entity`,
      {
        config: read,
        schema: {
          ...handlers.listSchema,
          ...doc('listGenericRecords'),
          summary: 'List entities: same as GET /api/v1/query/{entity}, with fullTextFilter',
          querystring: schemas.listQuerystring,
        },
      },
      async (request, reply) =>
        handlers.list(reply, principalOf(request), request.params, requestFromQueryParameters(request.query)),
    )
    scope.get(
      `${generic}/:entity/:id`,
      {
        config: read,
        schema: {
          ...handlers.getSchema,
          ...doc('getGenericRecord'),
          summary: 'Get one entity by id (HEAD: 200 or 404, no body)',
          querystring: schemas.getQuerystring,
        },
      },
      async (request, reply) =>
        handlers.get(reply, principalOf(request), request.params, requestFromQueryParameters(request.query)),
    )
    scope.post(
      `${generic}/:entity/:id`,
      {
        config: entityView,
        schema: {
          ...handlers.getSchema,
          ...doc('fetchGenericRecord'),
          summary: 'Get one entity by id: genericFields, nestedEntities, nestedDepth (an empty body: every field)',
          body: schemas.legacyBody,
        },
      },
      async (request, reply) =>
        handlers.get(reply, principalOf(request), request.params, requestFromLegacyBody(request.body)),
    )

    // Opencell's own writes (create, update, delete) are documented as what they answer: 405 with Allow. The other
    // methods no Opencell client sends are refused alike, undocumented. No body schema: the body is never read.
    const refused = (operationId: string, summary: string, params: object) => ({
      config: entityView,
      schema: { ...doc(operationId), summary, params, response: errorResponses(405) },
    })
    const toV1 = 'write through the v1 resource the answer names'
    scope.post(
      `${generic}/:entity`,
      refused('createGenericRecord', `Opencell's create: 405, ${toV1}`, schemas.entityParams),
      refuseWrite('GET, HEAD'),
    )
    scope.put(
      `${generic}/:entity/:id`,
      refused('updateGenericRecord', `Opencell's update: 405, ${toV1}`, schemas.entityIdParams),
      refuseWrite('GET, HEAD, POST'),
    )
    scope.delete(
      `${generic}/:entity/:id`,
      refused('deleteGenericRecord', `Opencell's delete: 405, ${toV1}`, schemas.entityIdParams),
      refuseWrite('GET, HEAD, POST'),
    )
    const closed = { config: entityView, schema: { hide: true } }
    const routes: [string, string, readonly HTTPMethods[]][] = [
      [`${prefix}/version`, 'GET, HEAD', ['POST', ...writes]],
      [`${generic}/version`, 'GET, HEAD', ['POST', ...writes]],
      [`${generic}/entities`, 'GET, HEAD', ['POST', ...writes]],
      [`${generic}/entities/:entity`, 'GET, HEAD', ['POST', ...writes]],
      [`${generic}/all/:entity`, 'POST', ['GET', ...writes]],
      [`${generic}/:entity`, 'GET, HEAD', writes],
      [`${generic}/:entity/:id`, 'GET, HEAD, POST', ['PATCH']],
    ]
    for (const [url, allow, methods] of routes) {
      scope.route({ method: [...methods], url, ...closed, handler: refuseWrite(allow) })
    }
  }
}
