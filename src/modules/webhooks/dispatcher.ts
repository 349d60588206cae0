import type { Logger } from 'pino'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { DISABLE_AFTER_FAILING_MS, outcomeOf } from './retry.model.ts'
import { send, type Sent } from './sender.ts'
import { signatureHeader } from './signing.ts'
import { checkTarget, TargetRefused } from './targets.ts'
import * as repo from './webhook.repository.ts'

/** Deliveries one claim takes; they are sent at once, each a request of its own. */
const CLAIM = 50
/**
 * Attempts an instance has under way at most: a pass claims only what fits, so a slow endpoint (15 s an attempt)
 * holds some of them, never the others' deliveries.
 */
const MAX_IN_FLIGHT = 200
/** Attempts one pass starts at most before it returns (the next pass goes on with the backlog). */
const PASS_LIMIT = 2_000
/**
 * How long a claimed delivery is held: longer than an attempt can take (15 s) and its recording, so no one else sends
 * it meanwhile; an instance that died mid-attempt leaves it to others once it runs out.
 */
const LEASE_MS = 30_000

export interface DispatcherDeps {
  readonly db: Db
  readonly clock: Clock
  readonly outbox: Outbox
  readonly allowPrivateTargets: boolean
  readonly log: Pick<Logger, 'warn'>
  /** The instance claiming (its leases end when it stops heartbeating for `staleAfterMs`). */
  readonly instance: { readonly id: string; readonly staleAfterMs: number }
  /** The jitter factor of a retry, in [0.9, 1.1] (tests may fix it). */
  readonly jitter?: () => number
}

/**
 * Delivers due webhook deliveries (invoicing-events.md §5): on every instance running jobs, each pass claims what is
 * due (leases, `for update skip locked`) and sends it — the endpoint's URL checked again (DNS may have changed), the
 * event signed with every secret in force, Standard Webhooks' headers, the attempt's time as `webhook-timestamp` —
 * then records the attempt and what it leads to. At least once: an instance dying mid-attempt leaves the lease to
 * run out, and the delivery is sent again with the same `webhook-id`.
 */
export function createDispatcher(deps: DispatcherDeps) {
  const { db, clock } = deps
  const jitter = deps.jitter ?? (() => 0.9 + Math.random() * 0.2)

  async function attempt(delivery: repo.DueDelivery, secrets: readonly string[]): Promise<void> {
    const at = clock.now()
    const started = performance.now()
    let sent: Sent
    try {
      const target = await checkTarget(delivery.url, deps.allowPrivateTargets)
      const timestamp = Math.floor(at.getTime() / 1000)
      sent = await send(
        target,
        {
          'content-type': 'application/json',
          'user-agent': 'Obol-Webhooks/1',
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, delivery.eventId, timestamp, delivery.body),
        },
        delivery.body,
      )
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error
      sent = { kind: 'error', message: `URL refused: ${error.message}`, responseBody: null }
    }
    const durationMs = Math.round(performance.now() - started)
    const done = clock.now()
    const outcome = outcomeOf(sent, delivery.attempts, done, jitter())
    // One statement, no transaction, for what nearly every attempt writes; disabling the endpoint (rare) is one.
    const since = await repo.recordAttempt(
      db,
      delivery,
      {
        at,
        durationMs,
        statusCode: sent.kind === 'status' ? sent.status : null,
        error: sent.kind === 'error' ? sent.message : null,
        responseBody: sent.responseBody,
      },
      { status: outcome.status, nextAttemptAt: outcome.status === 'RETRYING' ? outcome.nextAttemptAt : null },
    )
    const reason =
      outcome.status === 'FAILED' && outcome.disableEndpoint
        ? outcome.disableEndpoint
        : since !== null && done.getTime() - since.getTime() >= DISABLE_AFTER_FAILING_MS
          ? 'every delivery failed for 5 days'
          : undefined
    if (reason === undefined) return
    await withTransaction(db, async (tx) => {
      if (!(await repo.disableEndpoint(tx, delivery.endpointId, reason))) return
      const endpoint = await repo.findEndpoint(tx, delivery.endpointId, null)
      await deps.outbox.emit(tx, {
        type: 'webhook_endpoint.disabled',
        aggregate: { type: 'webhook_endpoint', id: delivery.endpointId },
        object: endpoint && endpointView(endpoint),
        previous: { active: true },
      })
    })
  }

  const inFlight = new Set<Promise<void>>()

  /** Claims up to `limit` due deliveries and starts their attempts; the attempts under way. */
  async function launch(limit: number): Promise<Promise<void>[]> {
    const due = await repo.claimDue(
      db,
      clock.now(),
      { ms: LEASE_MS, holder: deps.instance.id, staleAfterMs: deps.instance.staleAfterMs },
      limit,
    )
    if (due.length === 0) return []
    const secrets = await repo.signingSecrets(db, [...new Set(due.map((d) => d.endpointId))], clock.now())
    return due.map((d) => {
      const running = attempt(d, secrets.get(d.endpointId) ?? []).catch((err: unknown) =>
        deps.log.warn({ err }, 'webhook attempt not recorded'),
      )
      inFlight.add(running)
      void running.finally(() => inFlight.delete(running))
      return running
    })
  }

  return {
    /**
     * The recurring pass: claims what is due, as much as fits beside the attempts under way; while claims come back
     * full (a backlog), waits for an attempt to end and claims again, up to PASS_LIMIT attempts (a stopping instance
     * then finishes its pass soon); returns once a claim finds less than it could take.
     */
    async pump(): Promise<number> {
      let started = 0
      while (started < PASS_LIMIT) {
        const room = Math.min(CLAIM, MAX_IN_FLIGHT - inFlight.size)
        if (room <= 0) {
          await Promise.race(inFlight)
          continue
        }
        const launched = await launch(room)
        started += launched.length
        if (launched.length < room) return started
      }
      return started
    },

    /** One pass that waits for its attempts (a person's "retry now", tests): how many deliveries it attempted. */
    async runOnce(): Promise<number> {
      const launched = await launch(CLAIM)
      await Promise.all(launched)
      return launched.length
    },

    /** Waits for the attempts under way (a stopping instance, tests). */
    async drain(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight])
    },
  }
}

/** An endpoint as the API and its events show it: never its secret. */
export function endpointView(endpoint: repo.EndpointRow) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes,
    active: endpoint.active,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt,
  }
}

export type Dispatcher = ReturnType<typeof createDispatcher>
