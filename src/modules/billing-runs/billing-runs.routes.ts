import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { CodeParams } from '../../kernel/http/schemas.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { BillingRunScheduleService } from './billing-run-schedule.service.ts'
import { runNowView, scheduleBody, scheduleList, scheduleListQuery, scheduleView } from './billing-runs.schemas.ts'

const VIEW = { policy: { role: 'billing.billingRuns.view' } }
const MANAGE = { policy: { role: 'billing.billingRuns.manage' } }

/**
 * Billing run schedules (timers that create bill runs for billing cycles) and one-off bill runs. Thin: the policy
 * authorizes, the services decide.
 */
export function registerBillingRunRoutes(
  server: FastifyInstance,
  deps: { schedules: BillingRunScheduleService; actorOf: ActorOf },
): void {
  const { schedules, actorOf } = deps
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['BillingRunSchedules']
  const base = '/api/v1/billingRunSchedules'

  app.post(
    base,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Create a billing run schedule (one-time: repeats NONE with a future startDate; recurring: a cron)',
        body: scheduleBody(true),
        response: { 201: scheduleView },
      },
    },
    async (request, reply) => reply.status(201).send(await schedules.create(request.body, actorOf(request))),
  )
  app.get(
    base,
    {
      config: VIEW,
      schema: {
        tags,
        summary: 'List every billing run schedule, by code (offset and limit page only when sent)',
        querystring: scheduleListQuery,
        response: { 200: scheduleList },
      },
    },
    async (request) => schedules.list(request.query),
  )
  app.get(
    `${base}/:code`,
    {
      config: VIEW,
      schema: { tags, summary: 'Get a billing run schedule', params: CodeParams, response: { 200: scheduleView } },
    },
    async (request) => schedules.get(request.params.code),
  )
  app.put(
    `${base}/:code`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary:
          'Update a billing run schedule (partial: only the fields sent change; the next firing is recomputed; COMPLETED → 409)',
        params: CodeParams,
        body: scheduleBody(false),
        response: { 200: scheduleView },
      },
    },
    async (request) => schedules.update(request.params.code, request.body, actorOf(request)),
  )
  app.delete(
    `${base}/:code`,
    {
      config: MANAGE,
      schema: { tags, summary: 'Delete a billing run schedule (its bill runs stay)', params: CodeParams },
    },
    async (request, reply) => {
      await schedules.delete(request.params.code)
      return reply.status(204).send()
    },
  )
  app.post(
    `${base}/:code/pause`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Pause a schedule: no firing until resumed (already paused: no change; COMPLETED → 409)',
        params: CodeParams,
        response: { 200: scheduleView },
      },
    },
    async (request) => schedules.pause(request.params.code, actorOf(request)),
  )
  app.post(
    `${base}/:code/resume`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Resume a paused schedule from now (already active: no change; COMPLETED → 409)',
        params: CodeParams,
        response: { 200: scheduleView },
      },
    },
    async (request) => schedules.resume(request.params.code, actorOf(request)),
  )
  app.post(
    `${base}/:code/runNow`,
    {
      config: MANAGE,
      schema: {
        operationId: 'runBillingRunScheduleNow',
        tags,
        summary: 'Fire the schedule now, whatever its state: one bill run per billing cycle; state and timer unchanged',
        params: CodeParams,
        response: { 200: runNowView },
      },
    },
    async (request) => schedules.runNow(request.params.code, actorOf(request)),
  )
}
