import type { FastifyInstance } from 'fastify'
import { AppError } from '../../kernel/errors.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import { errorResponses, OpenObject, Reserved } from '../../kernel/http/schemas.ts'
import type { ReportQueryInput, ReportQueryService } from './report-query.service.ts'

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] })

/** Required fields are checked in the service so their absence is `missing-parameter`, as §7.1 asks. */
const reportQueryBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    code: nullable({ type: 'string', maxLength: 255 }),
    description: nullable({ type: 'string', maxLength: 4000 }),
    targetEntity: nullable({ type: 'string', maxLength: 200 }),
    visibility: nullable({ type: 'string', maxLength: 50 }),
    tags: nullable({ type: 'array', maxItems: 100, items: { type: 'string', maxLength: 200 } }),
    aliases: nullable({ type: 'object', maxProperties: 200, additionalProperties: { type: 'string', maxLength: 200 } }),
    advancedQuery: nullable({
      type: 'object',
      additionalProperties: true,
      description: 'the query, as the Query API reads it',
    }),
    queryType: { description: 'read-only: ignored on write' },
    system: { description: 'read-only: ignored on write' },
  },
}

const ReportQuery = OpenObject('ReportQuery', 'A saved report query: code, targetEntity, visibility, advancedQuery…')
const ReportQueryResult = OpenObject('ReportQueryResult', 'The rows of a synchronous execution (at most 100)')
const ReportQueryExecutions = OpenObject('ReportQueryExecutions', 'Executions of a saved query')

const codeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', minLength: 1, maxLength: 255 } },
}

function input(body: unknown): ReportQueryInput {
  const {
    queryType: _t,
    system: _s,
    ...rest
  } = (body ?? {}) as ReportQueryInput & { queryType?: unknown; system?: unknown }
  return rest
}

/** Saved report queries (ErrorV1 error bodies, chosen by the error handler from the path). */
export function registerReportQueryRoutes(app: FastifyInstance, service: ReportQueryService): void {
  const config = { policy: { anyRole: ['queryUser', 'queryManagement'] } }
  const tags = ['Report queries']

  app.post(
    '/api/v1/reportQueries',
    {
      config,
      schema: {
        tags,
        summary: 'Create a saved report query (code, targetEntity, visibility, advancedQuery required)',
        body: reportQueryBody,
        response: { 201: ReportQuery },
      },
    },
    async (request, reply) => reply.status(201).send(await service.create(principalOf(request), input(request.body))),
  )
  app.post(
    '/api/v1/reportQueries/:code',
    {
      config,
      schema: {
        operationId: 'putReportQuery',
        tags,
        summary: 'Create or replace a saved report query: 201 created, 200 updated; the path code wins',
        params: codeParams,
        body: reportQueryBody,
        response: { 200: ReportQuery, 201: ReportQuery },
      },
    },
    async (request, reply) => {
      const result = await service.upsert(
        principalOf(request),
        (request.params as { code: string }).code,
        input(request.body),
      )
      return reply.status(result.created ? 201 : 200).send(result.query)
    },
  )
  app.get(
    '/api/v1/reportQueries/:code',
    {
      config,
      schema: {
        tags,
        summary: 'Get a saved report query visible to the caller',
        params: codeParams,
        response: { 200: ReportQuery },
      },
    },
    async (request) => service.get(principalOf(request), (request.params as { code: string }).code),
  )
  app.put(
    '/api/v1/reportQueries/:code',
    {
      config,
      schema: {
        tags,
        summary: 'Partial update: null or absent keeps, an empty value clears; advancedQuery cannot be cleared',
        params: codeParams,
        body: reportQueryBody,
        response: { 200: ReportQuery },
      },
    },
    async (request) =>
      service.update(principalOf(request), (request.params as { code: string }).code, input(request.body)),
  )
  app.delete(
    '/api/v1/reportQueries/:code',
    { config, schema: { tags, summary: 'Delete a saved report query (system queries: 409)', params: codeParams } },
    async (request, reply) => {
      await service.delete(principalOf(request), (request.params as { code: string }).code)
      return reply.status(204).send()
    },
  )
  app.post(
    '/api/v1/reportQueries/:code/executions',
    {
      config,
      schema: {
        operationId: 'executeReportQuery',
        tags,
        summary: 'Run a saved query synchronously through the Query API engine (at most 100 rows)',
        params: codeParams,
        querystring: { type: 'object', properties: { mode: { type: 'string', maxLength: 50 } } },
        body: { anyOf: [{ type: 'object', additionalProperties: false }, { type: 'null' }] },
        response: { 200: ReportQueryResult, ...errorResponses(408, 429) },
      },
    },
    async (request) =>
      service.execute(
        principalOf(request),
        (request.params as { code: string }).code,
        (request.query as { mode?: string }).mode,
      ),
  )
  app.get(
    '/api/v1/reportQueries/:code/executions',
    {
      config,
      schema: {
        tags,
        summary: 'Executions of a saved query by the caller (all callers for queryManagement)',
        params: codeParams,
        response: { 200: ReportQueryExecutions },
      },
    },
    async (request) => service.executions(principalOf(request), (request.params as { code: string }).code),
  )

  const deferred = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, what: string, operationId?: string) =>
    app.route({
      method,
      url,
      config,
      schema: {
        tags,
        ...(operationId ? { operationId } : {}),
        summary: `${what}: announced, not yet available (501)`,
        response: { 200: Reserved, ...errorResponses(501) },
      },
      handler: async () => {
        throw new AppError('NOT_IMPLEMENTED', `${what} is not yet available in this version`)
      },
    })
  for (const method of ['PUT', 'GET', 'DELETE'] as const)
    deferred(method, '/api/v1/reportQueries/:code/schedule', 'The report query schedule')
  deferred('GET', '/api/v1/reportQueries/:code/executions/:executionId', 'Polling an asynchronous execution')
  deferred('GET', '/api/v1/reportQueries/:code/executions/:executionId/file', 'Downloading an execution result file')
  for (const method of ['GET', 'POST'] as const) deferred(method, '/api/v1/reportExtracts', 'Report extracts')
  for (const method of ['GET', 'PUT', 'DELETE', 'POST'] as const)
    deferred(method, '/api/v1/reportExtracts/:code', 'Report extracts')
  deferred('GET', '/api/v1/reports/agedReceivables', 'The aged receivables report', 'getAgedReceivables')
  deferred('GET', '/api/v1/reports/agedReceivables/export', 'The aged receivables export', 'getAgedReceivablesExport')
  deferred('POST', '/api/v1/reports/agedReceivables/export', 'The aged receivables export', 'exportAgedReceivables')
}
