import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import fs from 'node:fs'
import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { principalOf } from '../../kernel/http/principal.ts'
import { errorResponses } from '../../kernel/http/schemas.ts'
import type { ReportQueryService } from '../reporting/index.ts'
import type { DeepService } from './deep.service.ts'
import type { ExpertSchedules } from './expert-schedule.ts'
import type { ExpertService } from './expert.service.ts'
import type { SchemaService } from './schema.service.ts'
import {
  CodeParams,
  DeepQuerystring,
  DeepRows,
  EntityDescription,
  EntityNames,
  EntityParams,
  ExecutionParams,
  ExpertAccepted,
  ExpertExecuteBody,
  ExpertExecution,
  ExpertExecutionList,
  ExpertSchedule,
  ExpertTables,
  ExpertScheduleBody,
  PageQuerystring,
  WorkbenchQuery,
  WorkbenchQueryBody,
  WorkbenchQueryList,
  WorkbenchQueryListQuerystring,
} from './workbench.schemas.ts'

const queryUser = { policy: { role: 'queryUser' } }
/** Expert runs: submitted by queryExpert holders (who also need queryUser); query managers see everyone's. */
const queryExpert = { policy: { role: 'queryExpert' } }
/**
 * A submission writes only the run's bookkeeping (record, audit, governor counts), read from the primary: no write
 * position is recorded, so the run itself may read a replica that has replayed the caller's earlier writes.
 */
const expertSubmission = { ...queryExpert, reads: true as const }
const expertOrManager = { policy: { anyRole: ['queryExpert', 'queryManagement'] } }
const tags = ['Query workbench']

/**
 * A page as JSON text written as its items come (`{ total, offset, limit, data: [...] }`): a page of long query
 * texts is never held whole in memory.
 */
async function* pageJson(
  head: { total: number; offset: number; limit: number },
  items: AsyncIterable<unknown>,
): AsyncGenerator<string> {
  yield `{"total":${head.total},"offset":${head.offset},"limit":${head.limit},"data":[`
  let first = true
  for await (const item of items) {
    yield `${first ? '' : ','}${JSON.stringify(item)}`
    first = false
  }
  yield ']}'
}

/** The query workbench: Deep queries, the schema its editors complete from, and saved workbench queries. */
export function registerWorkbenchRoutes(
  server: FastifyInstance,
  services: {
    deep: DeepService
    expert: ExpertService
    schedules: ExpertSchedules
    schema: SchemaService
    queries: ReportQueryService
  },
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
      const { query, ...parameters } = request.query
      const result = await services.deep.run(principalOf(request), query, parameters)
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

  app.get(
    '/api/v1/workbench/expert/schema/tables',
    {
      config: queryExpert,
      schema: {
        operationId: 'listExpertTables',
        tags,
        summary: 'Tables and columns Expert SQL can read (editor completion): billing data, no platform records',
        description: 'Needs queryUser as well as queryExpert, as an Expert run does.',
        response: { 200: ExpertTables },
      },
    },
    async (request) => services.schema.expertTables(principalOf(request)),
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
      schema: {
        tags,
        summary:
          "Saved workbench queries the caller may see, by code, a page at a time (the tenant's default page size, at most 1000)",
        querystring: WorkbenchQueryListQuerystring,
        response: { 200: WorkbenchQueryList },
      },
    },
    async (request, reply) => {
      const { queries, ...head } = await services.queries.listWorkbenchQueries(principalOf(request), request.query)
      return reply.type('application/json; charset=utf-8').send(Readable.from(pageJson(head, queries)))
    },
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

  app.post(
    '/api/v1/workbench/expert/execute',
    {
      config: expertSubmission,
      schema: {
        tags,
        summary: 'Submit an Expert (native SQL) query: runs in the background into a CSV file; poll its execution',
        description: 'Needs queryUser as well as queryExpert.',
        body: ExpertExecuteBody,
        response: { 200: ExpertAccepted, ...errorResponses(404, 429) },
      },
    },
    async (request) => services.expert.submit(principalOf(request), request.body, services.queries),
  )
  app.get(
    '/api/v1/workbench/expert/executions',
    {
      config: expertOrManager,
      schema: {
        tags,
        summary: 'The caller’s Expert runs, newest first',
        querystring: PageQuerystring,
        response: { 200: ExpertExecutionList },
      },
    },
    async (request) => services.expert.list(principalOf(request), request.query),
  )
  app.get(
    '/api/v1/workbench/expert/executions/:id',
    {
      config: expertOrManager,
      schema: {
        tags,
        summary: 'An Expert run: status null until it ends (owner or queryManagement)',
        params: ExecutionParams,
        response: { 200: ExpertExecution },
      },
    },
    async (request) => services.expert.get(principalOf(request), request.params.id),
  )
  app.get(
    '/api/v1/workbench/expert/executions/:id/file',
    {
      // The rows of a run are Expert results: only for queryExpert holders, its owner or a query manager among them.
      config: queryExpert,
      schema: {
        tags,
        summary: 'The CSV of a successful Expert run, streamed (409 while it runs)',
        description: 'Needs queryExpert, and to be the run’s owner or to hold queryManagement.',
        params: ExecutionParams,
        produces: ['text/csv'],
        response: {
          // The handler streams the file: the schema documents a text body, typed as the stream that sends it.
          200: {
            description: 'The CSV file, header row first',
            content: { 'text/csv': { schema: Type.Unsafe<fs.ReadStream>({ type: 'string' }) } },
          },
          ...errorResponses(409),
        },
      },
    },
    async (request, reply) => {
      const id = request.params.id
      const file = await services.expert.file(principalOf(request), id)
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="expert-${id}.csv"`)
        .header('content-length', String(file.size))
        .send(fs.createReadStream(file.path))
    },
  )
  app.delete(
    '/api/v1/workbench/expert/executions/:id',
    {
      config: expertOrManager,
      schema: {
        tags,
        summary: 'Cancel an Expert run (pg_cancel_backend on a server); it then ends CANCELLED',
        params: ExecutionParams,
        response: { 202: ExpertExecution },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await services.expert.cancel(principalOf(request), request.params.id)),
  )

  app.put(
    '/api/v1/workbench/queries/:code/schedule',
    {
      config: queryExpert,
      schema: {
        tags,
        summary: 'Schedule a saved Expert (NATIVE_SQL) query: it runs as its owner at this cadence into a CSV export',
        params: CodeParams,
        body: ExpertScheduleBody,
        response: { 200: ExpertSchedule },
      },
    },
    async (request) =>
      services.schedules.put(principalOf(request), request.params.code, request.body.cron, services.queries),
  )
  app.get(
    '/api/v1/workbench/queries/:code/schedule',
    {
      config: expertOrManager,
      schema: {
        tags,
        summary: 'The schedule of a saved Expert query',
        params: CodeParams,
        response: { 200: ExpertSchedule },
      },
    },
    async (request) => services.schedules.get(principalOf(request), request.params.code, services.queries),
  )
  app.delete(
    '/api/v1/workbench/queries/:code/schedule',
    {
      config: expertOrManager,
      schema: { tags, summary: 'Remove the schedule of a saved Expert query', params: CodeParams },
    },
    async (request, reply) => {
      await services.schedules.remove(principalOf(request), request.params.code, services.queries)
      return reply.status(204).send()
    },
  )
}
