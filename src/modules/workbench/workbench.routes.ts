import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { principalOf } from '../../kernel/http/principal.ts'
import { errorResponses } from '../../kernel/http/schemas.ts'
import type { ReportQueryService } from '../reporting/index.ts'
import type { DeepService } from './deep.service.ts'
import type { SchemaService } from './schema.service.ts'
import {
  CodeParams,
  DeepQuerystring,
  DeepRows,
  EntityDescription,
  EntityNames,
  EntityParams,
  WorkbenchQuery,
  WorkbenchQueryBody,
  WorkbenchQueryList,
} from './workbench.schemas.ts'

const queryUser = { policy: { role: 'queryUser' } }
const tags = ['Query workbench']

/** The query workbench: Deep queries, the schema its editors complete from, and saved workbench queries. */
export function registerWorkbenchRoutes(
  server: FastifyInstance,
  services: { deep: DeepService; schema: SchemaService; queries: ReportQueryService },
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/api/rest/query',
    {
      config: queryUser,
      schema: {
        operationId: 'runDeepQuery',
        tags,
        summary: 'Run a Deep (HQL) query: rows as JSON, at most maxRowsSync; X-Result-Truncated when cut',
        querystring: DeepQuerystring,
        response: { 200: DeepRows, ...errorResponses(408, 429) },
      },
    },
    async (request, reply) => {
      const { query, ...parameters } = request.query as Record<string, string>
      const result = await services.deep.run(principalOf(request), query!, parameters)
      if (result.truncated) void reply.header('x-result-truncated', 'true')
      return reply.type('application/json; charset=utf-8').send(result.json)
    },
  )

  app.get(
    '/api/v1/workbench/schema/entities',
    {
      config: queryUser,
      schema: {
        operationId: 'listWorkbenchEntities',
        tags,
        summary: 'Entities the caller may query (editor completion)',
        response: { 200: EntityNames },
      },
    },
    async (request) => services.schema.entities(principalOf(request)),
  )
  app.get(
    '/api/v1/workbench/schema/entities/:entity',
    {
      config: queryUser,
      schema: {
        operationId: 'describeWorkbenchEntity',
        tags,
        summary: 'Fields and relations of an entity, with its table and columns',
        params: EntityParams,
        response: { 200: EntityDescription },
      },
    },
    async (request) => services.schema.describe(principalOf(request), request.params.entity),
  )

  app.post(
    '/api/v1/workbench/queries',
    {
      config: queryUser,
      schema: {
        tags,
        summary: 'Save a Deep (HQL) or Expert (NATIVE_SQL) query',
        body: WorkbenchQueryBody,
        response: { 201: WorkbenchQuery },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.queries.createWorkbenchQuery(principalOf(request), request.body)),
  )
  app.get(
    '/api/v1/workbench/queries',
    {
      config: queryUser,
      schema: { tags, summary: 'Saved workbench queries the caller may see', response: { 200: WorkbenchQueryList } },
    },
    async (request) => services.queries.listWorkbenchQueries(principalOf(request)),
  )
  app.get(
    '/api/v1/workbench/queries/:code',
    {
      config: queryUser,
      schema: { tags, summary: 'A saved query', params: CodeParams, response: { 200: WorkbenchQuery } },
    },
    async (request) => services.queries.get(principalOf(request), request.params.code),
  )
  app.put(
    '/api/v1/workbench/queries/:code',
    {
      config: queryUser,
      schema: {
        tags,
        summary: 'Change a saved workbench query (partial)',
        params: CodeParams,
        body: WorkbenchQueryBody,
        response: { 200: WorkbenchQuery },
      },
    },
    async (request) => services.queries.updateWorkbenchQuery(principalOf(request), request.params.code, request.body),
  )
  app.delete(
    '/api/v1/workbench/queries/:code',
    { config: queryUser, schema: { tags, summary: 'Delete a saved workbench query', params: CodeParams } },
    async (request, reply) => {
      await services.queries.delete(principalOf(request), request.params.code)
      return reply.status(204).send()
    },
  )
}
