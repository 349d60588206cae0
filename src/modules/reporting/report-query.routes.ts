import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type, type Static } from 'typebox'
import { AppError } from '../../kernel/errors.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import { CodeParams, errorResponses, ListOf, Nullable, Reserved } from '../../kernel/http/schemas.ts'
import { SYNC_ROW_CAP } from './report-query.model.ts'
import type { ReportQueryInput, ReportQueryService } from './report-query.service.ts'

/**
 * A saved query as clients send it. Required fields are checked by the service, not here, so that a missing one is
 * answered `MISSING_PARAMETER` (the schema would call it a validation failure).
 */
const ReportQueryBody = Type.Object(
  {
    code: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
    targetEntity: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    visibility: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
    tags: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 }))),
    aliases: Type.Optional(
      Nullable(
        Type.Unsafe<Record<string, string>>({
          type: 'object',
          maxProperties: 200,
          propertyNames: { maxLength: 200 },
          additionalProperties: { type: 'string', maxLength: 200 },
        }),
      ),
    ),
    advancedQuery: Type.Optional(
      Nullable(
        Type.Unsafe<Record<string, unknown>>({
          type: 'object',
          additionalProperties: true,
          description: 'the query, as the Query API reads it',
        }),
      ),
    ),
    queryType: Type.Optional(Type.Unknown({ description: 'read-only: ignored on write' })),
    system: Type.Optional(Type.Unknown({ description: 'read-only: ignored on write' })),
  },
  { additionalProperties: false },
)

/** A saved query as answered (`toWire`): every field is sent, `queryText` only by Deep and Expert queries. */
const ReportQuery = Type.Object(
  {
    code: Type.String(),
    description: Nullable(Type.String()),
    targetEntity: Nullable(Type.String({ description: 'the queried entity; null for an Expert (native SQL) query' })),
    visibility: Type.Union([Type.Literal('PUBLIC'), Type.Literal('PROTECTED'), Type.Literal('PRIVATE')], {
      description: 'PUBLIC: everyone; PROTECTED: the creator’s groups; PRIVATE: the creator',
    }),
    tags: Type.Array(Type.String()),
    aliases: Type.Record(Type.String(), Type.String(), { description: 'display names of the result’s fields' }),
    advancedQuery: Nullable(
      Type.Object(
        {},
        { additionalProperties: true, description: 'the query, as the Query API reads it; null for Deep and Expert' },
      ),
    ),
    queryText: Type.Optional(Type.String({ description: 'the text of a Deep (HQL) or Expert (NATIVE_SQL) query' })),
    queryType: Type.Union([Type.Literal('VISUAL'), Type.Literal('HQL'), Type.Literal('NATIVE_SQL')]),
    system: Type.Boolean({ description: 'defined by the release: read-only' }),
  },
  { $id: 'ReportQuery', title: 'ReportQuery', additionalProperties: false },
)
/** A synchronous execution; the rows' fields depend on the query, so they stay open. */
const ReportQueryResult = Type.Object(
  {
    status: Type.Literal('SUCCESS'),
    rowCount: Type.Integer({ minimum: 0, maximum: SYNC_ROW_CAP }),
    rows: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: `at most ${SYNC_ROW_CAP} rows, as the Query API writes them`,
    }),
  },
  { $id: 'ReportQueryResult', title: 'ReportQueryResult', additionalProperties: false },
)
/** One recorded execution of a saved query (a failure records its message). */
const ReportQueryExecution = Type.Object(
  {
    id: Type.Integer(),
    executedBy: Type.String(),
    startedAt: Type.String({ format: 'date-time' }),
    durationMs: Type.Integer({ minimum: 0 }),
    rowCount: Type.Integer({ minimum: 0 }),
    status: Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAILED')]),
    error: Nullable(Type.String({ description: 'why a FAILED execution failed' })),
  },
  { $id: 'ReportQueryExecution', title: 'ReportQueryExecution', additionalProperties: false },
)
/** The last 100 executions, newest first. */
const ReportQueryExecutions = ListOf(ReportQueryExecution, 'ReportQueryExecutions')
const ExecutionQuery = Type.Object({ mode: Type.Optional(Type.String({ maxLength: 50 })) })

/** The fields a client may write: the read-only ones it echoes back (`queryType`, `system`) are dropped. */
function input(body: Static<typeof ReportQueryBody> | undefined): ReportQueryInput {
  const { queryType: _t, system: _s, ...rest } = body ?? {}
  return rest
}

/** Saved report queries (ErrorV1 error bodies, chosen by the error handler from the path). */
export function registerReportQueryRoutes(server: FastifyInstance, service: ReportQueryService): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const config = { policy: { anyRole: ['queryUser', 'queryManagement'] } }
  const tags = ['Report queries']

  app.post(
    '/api/v1/reportQueries',
    {
      config,
      schema: {
        tags,
        summary: 'Create a saved report query (code, targetEntity, visibility, advancedQuery required)',
        body: ReportQueryBody,
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
        params: CodeParams,
        body: ReportQueryBody,
        response: { 200: ReportQuery, 201: ReportQuery },
      },
    },
    async (request, reply) => {
      const result = await service.upsert(principalOf(request), request.params.code, input(request.body))
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
        params: CodeParams,
        response: { 200: ReportQuery },
      },
    },
    async (request) => service.get(principalOf(request), request.params.code),
  )
  app.put(
    '/api/v1/reportQueries/:code',
    {
      config,
      schema: {
        tags,
        summary: 'Partial update: null or absent keeps, an empty value clears; advancedQuery cannot be cleared',
        params: CodeParams,
        body: ReportQueryBody,
        response: { 200: ReportQuery },
      },
    },
    async (request) => service.update(principalOf(request), request.params.code, input(request.body)),
  )
  app.delete(
    '/api/v1/reportQueries/:code',
    { config, schema: { tags, summary: 'Delete a saved report query (system queries: 409)', params: CodeParams } },
    async (request, reply) => {
      await service.delete(principalOf(request), request.params.code)
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
        params: CodeParams,
        querystring: ExecutionQuery,
        body: { anyOf: [{ type: 'object', additionalProperties: false }, { type: 'null' }] },
        response: { 200: ReportQueryResult, ...errorResponses(408, 429) },
      },
    },
    async (request) => service.execute(principalOf(request), request.params.code, request.query.mode),
  )
  app.get(
    '/api/v1/reportQueries/:code/executions',
    {
      config,
      schema: {
        tags,
        summary: 'Executions of a saved query by the caller (all callers for queryManagement)',
        params: CodeParams,
        response: { 200: ReportQueryExecutions },
      },
    },
    async (request) => service.executions(principalOf(request), request.params.code),
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
