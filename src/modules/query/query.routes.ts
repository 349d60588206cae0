import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../../kernel/errors.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import { isPlainObject, parseJsonExact } from './json-text.ts'
import type { QueryEngine } from './query.service.ts'
import { listEnvelopeText } from './query.service.ts'
import * as schemas from './query.schemas.ts'
import { entityParamOf, type EntityIdParams, type EntityParams } from './query.schemas.ts'
import { requestFromLegacyBody, requestFromQueryParameters, unknownBodyKey } from './request-parser.ts'
import { registerOpencellRoutes, type QueryHandler } from './opencell.routes.ts'

const JSON_TYPE = 'application/json; charset=utf-8'
const tags = ['Query API']
// Reads only, whatever the method: a POST here records no write position for read-your-writes.
export const entityView = { policy: { entityView: true as const }, reads: true as const }
const BOOLEAN_TEXT = /^(true|false)$/i

/**
 * The Query API (`/api/v1/query/…`: list, count and get records of any queryable entity, filtered by the caller's
 * roles and row-level security) and Opencell's generic API v2 (opencell.routes.ts). Read-only: other methods on these
 * paths answer 405. The routes live in their own scope, whose JSON parser keeps decimal numbers exact.
 */
export function registerQueryRoutes(app: FastifyInstance, engine: QueryEngine): void {
  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>()
    scope.removeContentTypeParser('application/json')
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      // A JSON content type without a body (the Opencell clients' DELETE) is no body.
      if (body === '') {
        done(null, undefined)
        return
      }
      try {
        done(null, parseJsonExact(body.toString()))
      } catch {
        done(new AppError('MALFORMED_JSON', 'The request body is not valid JSON'), undefined)
      }
    })

    // A POST without a body asks for the defaults, as an empty JSON object does; an empty query parameter
    // (`limit=`) counts as absent (so the default applies), before the schema would read it as a malformed value.
    // Booleans are accepted in any case (`forceCount=TRUE`), as the engine reads them.
    // A POST body sending a GET name (`fields`) is told the legacy name before the schema calls it unknown.
    scope.addHook('preValidation', async (request) => {
      if (request.method === 'POST' && request.body === undefined) request.body = {}
      // Only where a body is read: the writes refused with 405 may carry any entity.
      if (request.method === 'POST' && request.routeOptions.schema?.body && isPlainObject(request.body))
        for (const key of Object.keys(request.body)) unknownBodyKey(key)
      const query = request.query
      if (
        isPlainObject(query) &&
        Object.values(query).some((value) => value === '' || (typeof value === 'string' && BOOLEAN_TEXT.test(value)))
      ) {
        request.query = Object.fromEntries(
          Object.entries(query)
            .filter(([, value]) => value !== '')
            .map(([key, value]) => [
              key,
              typeof value === 'string' && BOOLEAN_TEXT.test(value) ? value.toLowerCase() : value,
            ]),
        )
      }
    })

    scope.get(
      '/api/v1/query/entities',
      {
        config: entityView,
        schema: {
          operationId: 'listQueryEntities',
          tags,
          summary: 'List the entity names the Query API serves',
          querystring: schemas.entitiesQuerystring,
          response: { 200: schemas.entitiesResponse },
        },
      },
      async (request) => engine.entities(principalOf(request), request.query),
    )
    scope.get(
      '/api/v1/query/entities/:entity',
      {
        config: entityView,
        schema: {
          operationId: 'describeQueryEntity',
          tags,
          summary: 'Describe how an entity maps to its table',
          params: schemas.entityParams,
          response: { 200: schemas.fieldMappingResponse },
        },
      },
      async (request) => engine.fieldMapping(principalOf(request), request.params.entity),
    )

    const list: QueryHandler<EntityParams> = async (reply, principal, { entity }, query) =>
      reply.type(JSON_TYPE).send(listEnvelopeText(await engine.list(principal, entity, query)))
    const listSchema = { tags, params: schemas.entityParams, response: { 200: schemas.listResponse } }
    scope.get(
      '/api/v1/query/:entity',
      {
        config: entityView,
        schema: {
          operationId: 'queryRecords',
          ...listSchema,
          summary: 'List entities: filters, fields, nested, paging, sorting, aggregation',
          querystring: schemas.listQuerystring,
        },
      },
      async (request, reply) =>
        list(reply, principalOf(request), request.params, requestFromQueryParameters(request.query)),
    )
    scope.post(
      '/api/v1/query/:entity',
      {
        config: entityView,
        schema: {
          operationId: 'searchRecords',
          ...listSchema,
          summary: 'List entities (legacy body names)',
          body: schemas.legacyBody,
        },
      },
      async (request, reply) => list(reply, principalOf(request), request.params, requestFromLegacyBody(request.body)),
    )

    const countSchema = { tags, params: schemas.entityParams, response: { 200: schemas.countResponse } }
    scope.get(
      '/api/v1/query/:entity/count',
      {
        config: entityView,
        schema: {
          operationId: 'countRecords',
          ...countSchema,
          summary: 'Count entities matching filters',
          querystring: schemas.countQuerystring,
        },
      },
      async (request) =>
        engine.count(principalOf(request), request.params.entity, requestFromQueryParameters(request.query)),
    )
    scope.post(
      '/api/v1/query/:entity/count',
      {
        config: entityView,
        schema: {
          operationId: 'searchCountRecords',
          ...countSchema,
          summary: 'Count entities matching filters (legacy body names)',
          body: schemas.legacyBody,
        },
      },
      async (request) => engine.count(principalOf(request), request.params.entity, requestFromLegacyBody(request.body)),
    )

    const get: QueryHandler<EntityIdParams> = async (reply, principal, { entity, id }, query) =>
      reply.type(JSON_TYPE).send(`{"data":${await engine.get(principal, entity, id, query)}}`)
    const getSchema = { tags, params: schemas.entityIdParams, response: { 200: schemas.getResponse } }
    scope.get(
      '/api/v1/query/:entity/:id',
      {
        config: entityView,
        schema: {
          operationId: 'queryRecord',
          ...getSchema,
          summary: 'Get one entity by id',
          querystring: schemas.getQuerystring,
        },
      },
      async (request, reply) =>
        get(reply, principalOf(request), request.params, requestFromQueryParameters(request.query)),
    )
    scope.post(
      '/api/v1/query/:entity/:id',
      {
        config: entityView,
        schema: {
          operationId: 'searchRecord',
          ...getSchema,
          summary: 'Get one entity by id (legacy body names)',
          body: schemas.legacyBody,
        },
      },
      async (request, reply) => get(reply, principalOf(request), request.params, requestFromLegacyBody(request.body)),
    )

    // Read-only: writes go through the entity's own v1 resource. Guarded like the reads: 401, 403, then 405.
    const readOnly = (allow: string) => async (request: FastifyRequest) => {
      engine.assertCanQuery(principalOf(request), entityParamOf(request.params))
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `The Query API is read-only: ${request.method} is not allowed here (allowed: ${allow})`,
        {
          headers: { allow },
        },
      )
    }
    const writes = ['PUT', 'PATCH', 'DELETE'] as const
    const closed = { config: entityView, schema: { hide: true } }
    registerOpencellRoutes(scope, engine, { list, get, listSchema, getSchema })
    for (const [url, allow, methods] of [
      ['/api/v1/query/entities', 'GET, HEAD', [...writes, 'POST']],
      ['/api/v1/query/entities/:entity', 'GET, HEAD', [...writes, 'POST']],
      ['/api/v1/query/:entity', 'GET, HEAD, POST', writes],
      ['/api/v1/query/:entity/count', 'GET, HEAD, POST', writes],
      ['/api/v1/query/:entity/:id', 'GET, HEAD, POST', writes],
    ] as const) {
      scope.route({ method: [...methods], url, ...closed, handler: readOnly(allow) })
    }
  })
}
