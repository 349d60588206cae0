import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { JobRuntime } from '../../kernel/jobs/job-runtime.ts'
import { createDispatcher } from './dispatcher.ts'
import { registerWebhookRoutes } from './webhook.routes.ts'
import * as repo from './webhook.repository.ts'
import { createWebhookService } from './webhook.service.ts'

/** How often every instance running jobs looks for due deliveries. */
const DISPATCH_INTERVAL_MS = 200
/** Events are kept this long, with their deliveries. */
export const EVENT_RETENTION_MS = 30 * 86_400_000

/**
 * Outgoing events (invoicing-events.md §5): every event the outbox writes gets, in its transaction, a delivery per
 * subscribed endpoint; the dispatcher (a recurring task of every worker instance) delivers them; events older than
 * 30 days are purged with their deliveries.
 */
export function createWebhooksModule(deps: {
  db: Db
  clock: Clock
  outbox: Outbox
  jobs: JobRuntime
  allowPrivateTargets: boolean
  log: Pick<Logger, 'warn'>
  jitter?: () => number
}) {
  deps.outbox.listen((emitted, at) => repo.fanOutSql(emitted, at))
  const dispatcher = createDispatcher({
    db: deps.db,
    clock: deps.clock,
    outbox: deps.outbox,
    allowPrivateTargets: deps.allowPrivateTargets,
    log: deps.log,
    instance: { id: deps.jobs.instanceId, staleAfterMs: deps.jobs.instanceStaleAfterMs },
    ...(deps.jitter ? { jitter: deps.jitter } : {}),
  })
  deps.jobs.every('webhook-dispatch', DISPATCH_INTERVAL_MS, () => dispatcher.pump(), { atStart: false })
  deps.jobs.every(
    'event-purge',
    3_600_000,
    async () => {
      const before = new Date(deps.clock.now().getTime() - EVENT_RETENTION_MS)
      while ((await repo.purgeEvents(deps.db, before, 1000)) === 1000);
    },
    { atStart: false },
  )
  const webhooks = createWebhookService({
    db: deps.db,
    clock: deps.clock,
    outbox: deps.outbox,
    dispatcher,
    allowPrivateTargets: deps.allowPrivateTargets,
  })
  return {
    webhooks,
    dispatcher,
    routes: (app: FastifyInstance) => registerWebhookRoutes(app, { webhooks }),
  }
}
