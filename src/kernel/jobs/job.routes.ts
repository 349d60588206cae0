import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { ActorOf } from '../resources/resource.routes.ts'
import type { JobRuntime } from './job-runtime.ts'
import type { JobService } from './job.service.ts'
import { SCHEDULE_FIELDS, type ScheduleExpression } from './schedule-expression.ts'
import { CodeParams, PageOf } from '../http/schemas.ts'
import { PageQuery as ListPage } from '../http/pagination.ts'

/** The executions list's paging: the one rule of every list (the tenant's default page size, at most MAX_PAGE_LIMIT). */
const PageQuery = Type.Object(ListPage, { additionalProperties: false })
/** The EJB ScheduleExpression fields as strings (checked by the service), or null for no timer. */
const Timer = Type.Unsafe<ScheduleExpression | null>({
  type: ['object', 'null'],
  additionalProperties: false,
  description: 'EJB ScheduleExpression fields, evaluated in the tenant time zone',
  // Every field may be omitted, and a timer reads back as it was written.
  required: [],
  properties: Object.fromEntries(SCHEDULE_FIELDS.map((f) => [f, { type: 'string', maxLength: 200 }])),
})
const JobUpdate = Type.Object(
  {
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    parameters: Type.Optional(Type.Object({}, { additionalProperties: true })),
    timer: Type.Optional(Timer),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

const instant = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description })

/** A job instance: its type, parameters, timer and fire times (`JobRecord`). */
const Job = Type.Object(
  {
    code: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    jobType: Type.String({ description: 'one of the `jobTypes` of the list' }),
    parameters: Type.Object({}, { additionalProperties: true, description: 'the job type’s parameters' }),
    timer: Timer,
    active: Type.Boolean(),
    nextFireAt: instant('the timer’s next firing; null without an active timer'),
    lastFireAt: instant('the last firing of the timer'),
  },
  { $id: 'Job', title: 'Job', additionalProperties: false },
)
const JobList = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    data: Type.Array(Job),
    jobTypes: Type.Array(
      Type.Object({ name: Type.String(), description: Type.String() }, { additionalProperties: false }),
      { description: 'the job types this version provides' },
    ),
  },
  { $id: 'JobList', title: 'JobList', additionalProperties: false },
)
/** One execution of a job (`ExecutionView`). */
const JobExecution = Type.Object(
  {
    id: Type.Integer(),
    jobCode: Type.String(),
    status: Type.String({ description: '`QUEUED`, `RUNNING`, `SUCCESS` or `FAILED`' }),
    trigger: Type.String({ description: '`TIMER` or `MANUAL`' }),
    fireTime: instant('the timer’s due time it ran for; null for a manual run'),
    queuedAt: Type.String({ format: 'date-time' }),
    startedAt: instant('null while queued'),
    endedAt: instant('null until it ends'),
    processedCount: Type.Integer({ minimum: 0 }),
    failedCount: Type.Integer({ minimum: 0 }),
    error: Type.Union([Type.String(), Type.Null()]),
    instance: Type.Union([Type.String(), Type.Null()], { description: 'the process that ran it' }),
  },
  { $id: 'JobExecution', title: 'JobExecution', additionalProperties: false },
)
const JobExecutionPage = PageOf(JobExecution, 'JobExecutionPage')

/** Job instances: read and change them (the service), run them and read their executions (the runtime). */
export function registerJobRoutes(
  server: FastifyInstance,
  jobs: JobService,
  runtime: JobRuntime,
  actorOf: ActorOf,
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['Jobs']
  app.get(
    '/api/v1/jobs',
    {
      config: { policy: { role: 'api.jobs.view' } },
      schema: { tags, summary: 'List job instances with their timers', response: { 200: JobList } },
    },
    async () => {
      const data = await jobs.list()
      return {
        total: data.length,
        data,
        jobTypes: runtime.jobTypes().map((t) => ({ name: t.name, description: t.description })),
      }
    },
  )
  app.get(
    '/api/v1/jobs/:code',
    {
      config: { policy: { role: 'api.jobs.view' } },
      schema: { tags, summary: 'Get a job instance', params: CodeParams, response: { 200: Job } },
    },
    async (request) => jobs.get(request.params.code),
  )
  app.put(
    '/api/v1/jobs/:code',
    {
      config: { policy: { role: 'api.jobs.manage' } },
      schema: {
        tags,
        summary: 'Change a job instance (partial): description, parameters, timer, active',
        params: CodeParams,
        body: JobUpdate,
        response: { 200: Job },
      },
    },
    async (request) => jobs.update(request.params.code, request.body, actorOf(request).username),
  )
  app.post(
    '/api/v1/jobs/:code/run',
    {
      config: { policy: { role: 'api.jobs.run' } },
      schema: {
        tags,
        summary: 'Run a job now, whatever its timer; answers 202 with the queued execution',
        params: CodeParams,
        response: { 202: JobExecution },
      },
    },
    async (request, reply) => {
      const execution = await runtime.runNow(request.params.code, actorOf(request).username)
      return reply.status(202).send(execution)
    },
  )
  app.get(
    '/api/v1/jobs/:code/executions',
    {
      config: { policy: { role: 'api.jobs.view' } },
      schema: {
        tags,
        summary: 'Executions of a job, newest first: status, start, end, counts, error',
        params: CodeParams,
        querystring: PageQuery,
        response: { 200: JobExecutionPage },
      },
    },
    async (request) => runtime.executions(request.params.code, request.query),
  )
}
