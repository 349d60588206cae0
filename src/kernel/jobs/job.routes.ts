import type { FastifyInstance } from 'fastify'
import { sql } from 'drizzle-orm'
import { instantText } from '../model/json.ts'
import { one, rows, type Db } from '../db/database.ts'
import { AppError } from '../errors.ts'
import { readTenantSettings } from '../settings.ts'
import type { ActorOf } from '../resources/resource.routes.ts'
import { nextFireTime, timerError, type JobRuntime } from './job-runtime.ts'
import { SCHEDULE_FIELDS, type ScheduleExpression } from './schedule-expression.ts'
import { OpenObject } from '../http/schemas.ts'

const codeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', minLength: 1, maxLength: 255 } },
}
const pageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  },
}
const timerSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  description: 'EJB ScheduleExpression fields, evaluated in the tenant time zone',
  properties: Object.fromEntries(SCHEDULE_FIELDS.map((f) => [f, { type: 'string', maxLength: 200 }])),
}
const jobUpdateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    description: { type: ['string', 'null'], maxLength: 2000 },
    parameters: { type: 'object' },
    timer: timerSchema,
    active: { type: 'boolean' },
  },
}

const jobColumns = sql`code, description, job_type as "jobType", parameters, timer, active,
  ${instantText(sql`next_fire_at`)} as "nextFireAt",
  ${instantText(sql`last_fire_at`)} as "lastFireAt"`

async function getJob(db: Db, code: string) {
  const job = await one<Record<string, unknown>>(db, sql`select ${jobColumns} from job_instance where code = ${code}`)
  if (!job) throw new AppError('ENTITY_NOT_FOUND', `Job ${code} not found`)
  return job
}

const Job = OpenObject('Job', 'A job instance: its type, parameters, timer, next fire time and last execution')
const JobList = OpenObject('JobList', '`{ total, data: Job[], jobTypes: [{ name, description }] }`')
const JobExecution = OpenObject('JobExecution', 'One execution of a job: status, start, end, counts, error')
const JobExecutionPage = OpenObject('JobExecutionPage', '`{ total, offset, limit, data: JobExecution[] }`')

export function registerJobRoutes(app: FastifyInstance, db: Db, runtime: JobRuntime, actorOf: ActorOf): void {
  const tags = ['Jobs']
  app.get(
    '/api/v1/jobs',
    {
      config: { policy: { role: 'api.jobs.view' } },
      schema: { tags, summary: 'List job instances with their timers', response: { 200: JobList } },
    },
    async () => {
      const data = await rows(db, sql`select ${jobColumns} from job_instance order by code`)
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
      schema: { tags, summary: 'Get a job instance', params: codeParams, response: { 200: Job } },
    },
    async (request) => getJob(db, (request.params as { code: string }).code),
  )
  app.put(
    '/api/v1/jobs/:code',
    {
      config: { policy: { role: 'api.jobs.manage' } },
      schema: {
        tags,
        summary: 'Change a job instance (partial): description, parameters, timer, active',
        params: codeParams,
        body: jobUpdateBody,
        response: { 200: Job },
      },
    },
    async (request) => {
      const { code } = request.params as { code: string }
      const body = request.body as {
        description?: string | null
        parameters?: object
        timer?: ScheduleExpression | null
        active?: boolean
      }
      await db.transaction(async (tx) => {
        const current = await one<{ id: number; timer: ScheduleExpression | null }>(
          tx,
          sql`select id, timer from job_instance where code = ${code} for update`,
        )
        if (!current) throw new AppError('ENTITY_NOT_FOUND', `Job ${code} not found`)
        const timer = body.timer === undefined ? current.timer : body.timer
        let next: Date | null = null
        if (timer) {
          try {
            next = nextFireTime(timer, (await readTenantSettings(tx)).timeZone, new Date())
          } catch (error) {
            throw timerError(error) ?? error
          }
        }
        const sets = [
          sql`updated = now()`,
          sql`updater = ${actorOf(request).username}`,
          sql`next_fire_at = ${next?.toISOString() ?? null}::timestamptz`,
        ]
        if (body.description !== undefined) sets.push(sql`description = ${body.description}`)
        if (body.parameters !== undefined) sets.push(sql`parameters = ${JSON.stringify(body.parameters)}::jsonb`)
        if (body.timer !== undefined) sets.push(sql`timer = ${body.timer ? JSON.stringify(body.timer) : null}::jsonb`)
        if (body.active !== undefined) sets.push(sql`active = ${body.active}`)
        await tx.execute(sql`update job_instance set ${sql.join(sets, sql`, `)} where id = ${current.id}`)
      })
      return getJob(db, code)
    },
  )
  app.post(
    '/api/v1/jobs/:code/run',
    {
      config: { policy: { role: 'api.jobs.run' } },
      schema: {
        tags,
        summary: 'Run a job now, whatever its timer; answers 202 with the queued execution',
        params: codeParams,
        response: { 202: JobExecution },
      },
    },
    async (request, reply) => {
      const execution = await runtime.runNow((request.params as { code: string }).code, actorOf(request).username)
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
        params: codeParams,
        querystring: pageQuery,
        response: { 200: JobExecutionPage },
      },
    },
    async (request) =>
      runtime.executions((request.params as { code: string }).code, request.query as { offset: number; limit: number }),
  )
}
