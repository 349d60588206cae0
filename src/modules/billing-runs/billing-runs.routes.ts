import type { FastifyInstance } from 'fastify'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { ScheduleBody } from './billing-runs.model.ts'
import type { BillingRunScheduleService } from './billing-run-schedule.service.ts'
import type { BillRunBody, BillRunQuery, BillRunService } from './billing-run.service.ts'
import {
  billRunBody,
  billRunList,
  billRunListQuery,
  billRunView,
  codeParams,
  idParams,
  runNowView,
  scheduleBody,
  scheduleList,
  scheduleListQuery,
  scheduleView,
} from './billing-runs.schemas.ts'

const VIEW = { policy: { role: 'billing.billingRuns.view' } }
const MANAGE = { policy: { role: 'billing.billingRuns.manage' } }

const codeOf = (request: { params: unknown }) => (request.params as { code: string }).code

/** Billing run schedules (§4.1) and bill runs. Thin: the policy authorizes, the services decide. */
export function registerBillingRunRoutes(
  app: FastifyInstance,
  deps: { schedules: BillingRunScheduleService; billRuns: BillRunService; actorOf: ActorOf },
): void {
  const { schedules, billRuns, actorOf } = deps
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
    async (request, reply) =>
      reply.status(201).send(await schedules.create(request.body as ScheduleBody, actorOf(request))),
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
    async (request) => schedules.list(request.query as { offset?: number; limit?: number }),
  )
  app.get(
    `${base}/:code`,
    {
      config: VIEW,
      schema: { tags, summary: 'Get a billing run schedule', params: codeParams, response: { 200: scheduleView } },
    },
    async (request) => schedules.get(codeOf(request)),
  )
  app.put(
    `${base}/:code`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary:
          'Update a billing run schedule (partial: only the fields sent change; the next firing is recomputed; COMPLETED → 409)',
        params: codeParams,
        body: scheduleBody(false),
        response: { 200: scheduleView },
      },
    },
    async (request) => schedules.update(codeOf(request), request.body as ScheduleBody, actorOf(request)),
  )
  app.delete(
    `${base}/:code`,
    {
      config: MANAGE,
      schema: { tags, summary: 'Delete a billing run schedule (its bill runs stay)', params: codeParams },
    },
    async (request, reply) => {
      await schedules.delete(codeOf(request))
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
        params: codeParams,
        response: { 200: scheduleView },
      },
    },
    async (request) => schedules.pause(codeOf(request), actorOf(request)),
  )
  app.post(
    `${base}/:code/resume`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Resume a paused schedule from now (already active: no change; COMPLETED → 409)',
        params: codeParams,
        response: { 200: scheduleView },
      },
    },
    async (request) => schedules.resume(codeOf(request), actorOf(request)),
  )
  app.post(
    `${base}/:code/runNow`,
    {
      config: MANAGE,
      schema: {
        operationId: 'runBillingRunScheduleNow',
        tags,
        summary: 'Fire the schedule now, whatever its state: one bill run per billing cycle; state and timer unchanged',
        params: codeParams,
        response: { 200: runNowView },
      },
    },
    async (request) => schedules.runNow(codeOf(request), actorOf(request)),
  )

  const runTags = ['BillingRuns']
  app.post(
    '/api/v1/billingRuns',
    {
      config: MANAGE,
      schema: {
        tags: runTags,
        summary: 'Create a one-off bill run (status NEW) for a billing cycle, with its own aggregation rules',
        body: billRunBody,
        response: { 201: billRunView },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await billRuns.create(request.body as BillRunBody, actorOf(request))),
  )
  app.get(
    '/api/v1/billingRuns',
    {
      config: VIEW,
      schema: {
        tags: runTags,
        summary: 'List bill runs, newest first; filter by scheduleCode, billingCycle or status',
        querystring: billRunListQuery,
        response: { 200: billRunList },
      },
    },
    async (request) => billRuns.list(request.query as BillRunQuery),
  )
  app.get(
    '/api/v1/billingRuns/:id',
    {
      config: VIEW,
      schema: { tags: runTags, summary: 'Get a bill run', params: idParams, response: { 200: billRunView } },
    },
    async (request) => billRuns.get((request.params as { id: number }).id),
  )
}
