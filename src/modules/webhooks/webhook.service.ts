import type { Caller } from '../../kernel/caller.ts'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { EVENT_TYPES, type Outbox } from '../../kernel/events/index.ts'
import { defaultPageLimit, pageOf, type PageRequest } from '../../kernel/http/pagination.ts'
import { endpointView, type Dispatcher } from './dispatcher.ts'
import { newSecret } from './signing.ts'
import { checkTarget, TargetRefused } from './targets.ts'
import * as repo from './webhook.repository.ts'

/** Endpoints a tenant keeps at most: each event is one delivery per endpoint. */
export const MAX_ENDPOINTS = 100
/** A rotated secret keeps signing beside the new one this long. */
export const ROTATION_OVERLAP_MS = 86_400_000

const notFound = (id: number) => new AppError('WEBHOOK_ENDPOINT_NOT_FOUND', `Webhook endpoint ${id} not found`)

/** The event types an endpoint may subscribe to: the catalogue, or `*` alone. */
function checkedTypes(types: readonly string[]): string[] {
  const unique = [...new Set(types)]
  if (unique.includes('*') && unique.length > 1)
    throw validationError([{ field: 'eventTypes', message: '`*` stands alone: it subscribes to every type' }])
  const unknown = unique.filter((t) => t !== '*' && !(EVENT_TYPES as readonly string[]).includes(t))
  if (unknown.length > 0)
    throw validationError(
      unknown.map((t) => ({
        field: 'eventTypes',
        message: `unknown event type '${t}' (see GET /api/v1/webhookEndpoints/eventTypes)`,
      })),
    )
  return unique
}

export interface EndpointBody {
  url?: string
  description?: string | null
  eventTypes?: string[]
  active?: boolean
}

/**
 * Webhook endpoints (invoicing-events.md §2.7, §4): their URLs checked as the dispatcher checks them (HTTPS, no
 * private target unless WEBHOOK_PRIVATE_TARGETS=allow), their secret shown once, rotations, tests, replays, their
 * deliveries; events read for 30 days. A seller-restricted caller's endpoints receive only its sellers' events.
 */
export function createWebhookService(deps: {
  db: Db
  clock: Clock
  outbox: Outbox
  dispatcher: Dispatcher
  allowPrivateTargets: boolean
}) {
  const { db, clock } = deps

  async function checkedUrl(url: string): Promise<string> {
    try {
      return (await checkTarget(url, deps.allowPrivateTargets)).url.toString()
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error
      throw new AppError('WEBHOOK_URL_REFUSED', `url: ${error.message}`, {
        details: [{ field: 'url', message: error.message }],
      })
    }
  }

  async function visible(tx: Db, id: number, caller: Caller, lock = false): Promise<repo.EndpointRow> {
    const found = await repo.findEndpoint(tx, id, caller.sellerCodes, lock)
    if (!found) throw notFound(id)
    return found
  }

  return {
    eventTypes: () => ({ eventTypes: [...EVENT_TYPES] }),

    list: async (caller: Caller) => {
      const data = (await repo.listEndpoints(db, caller.sellerCodes)).map(endpointView)
      return { total: data.length, data }
    },

    get: async (id: number, caller: Caller) => endpointView(await visible(db, id, caller)),

    /** Creates an endpoint and its secret, answered this once. */
    async create(body: Required<Pick<EndpointBody, 'url' | 'eventTypes'>> & EndpointBody, caller: Caller) {
      const url = await checkedUrl(body.url)
      const eventTypes = checkedTypes(body.eventTypes)
      return withTransaction(db, async (tx) => {
        if ((await repo.listEndpoints(tx, null)).length >= MAX_ENDPOINTS)
          throw new AppError('ENTITY_IN_USE', `At most ${MAX_ENDPOINTS} webhook endpoints: delete one first`)
        const id = await repo.insertEndpoint(
          tx,
          { url, description: body.description ?? null, eventTypes, sellerCodes: caller.sellerCodes },
          caller.username,
        )
        const secret = newSecret()
        await repo.addSecret(tx, id, secret, null)
        return { ...endpointView((await repo.findEndpoint(tx, id, null))!), secret }
      })
    },

    /** Partial: the fields sent change; `active: true` enables a disabled endpoint again. */
    async update(id: number, body: EndpointBody, caller: Caller) {
      const url = body.url === undefined ? undefined : await checkedUrl(body.url)
      const eventTypes = body.eventTypes === undefined ? undefined : checkedTypes(body.eventTypes)
      return withTransaction(db, async (tx) => {
        const current = await visible(tx, id, caller, true)
        await repo.updateEndpoint(
          tx,
          id,
          {
            url: url ?? current.url,
            description: body.description === undefined ? current.description : body.description,
            eventTypes: eventTypes ?? current.eventTypes,
            active: body.active ?? current.active,
          },
          caller.username,
        )
        return endpointView((await repo.findEndpoint(tx, id, null))!)
      })
    },

    async delete(id: number, caller: Caller): Promise<void> {
      await withTransaction(db, async (tx) => {
        await visible(tx, id, caller, true)
        await repo.deleteEndpoint(tx, id)
      })
    },

    /** A new secret, answered this once; the previous one keeps signing beside it for 24 hours. */
    async rotateSecret(id: number, caller: Caller) {
      return withTransaction(db, async (tx) => {
        await visible(tx, id, caller, true)
        const secret = newSecret()
        await repo.addSecret(tx, id, secret, new Date(clock.now().getTime() + ROTATION_OVERLAP_MS))
        return { secret }
      })
    },

    /** Sends a `webhook.test` event to this endpoint alone (through the outbox, like every event). */
    async test(id: number, caller: Caller) {
      return withTransaction(db, async (tx) => {
        const endpoint = await visible(tx, id, caller)
        const event = await deps.outbox.emit(tx, {
          type: 'webhook.test',
          aggregate: { type: 'webhook_endpoint', id },
          object: endpointView(endpoint),
        })
        return { event: event.eventId }
      })
    },

    /** Delivers again the events of a time range (and types) to this endpoint, with the same event ids. */
    async replay(id: number, body: { since: string; until?: string; eventTypes?: string[] }, caller: Caller) {
      const since = new Date(body.since)
      const until = body.until === undefined ? clock.now() : new Date(body.until)
      if (Number.isNaN(since.getTime()))
        throw validationError([{ field: 'since', message: 'expected an ISO-8601 instant' }])
      if (Number.isNaN(until.getTime()))
        throw validationError([{ field: 'until', message: 'expected an ISO-8601 instant' }])
      if (until <= since) throw validationError([{ field: 'until', message: 'must be after since' }])
      const eventTypes = body.eventTypes === undefined ? null : checkedTypes(body.eventTypes).filter((t) => t !== '*')
      return withTransaction(db, async (tx) => {
        const endpoint = await visible(tx, id, caller)
        const deliveries = await repo.replay(tx, endpoint, { since, until, eventTypes }, clock.now())
        return { deliveries }
      })
    },

    async deliveries(id: number, query: PageRequest & { status?: string }, caller: Caller) {
      await visible(db, id, caller)
      const page = pageOf(query, await defaultPageLimit(db))
      const found = await repo.listDeliveries(
        db,
        { endpointId: id, ...(query.status === undefined ? {} : { status: query.status }) },
        page,
      )
      return { ...found, ...page }
    },

    /** Attempts a delivery now (whatever its schedule, a FAILED one again), then answers it as it stands. */
    async retry(deliveryId: number, caller: Caller) {
      const found = await repo.findDelivery(db, deliveryId)
      if (!found || !(await repo.findEndpoint(db, found.endpointId, caller.sellerCodes)))
        throw new AppError('NOT_FOUND', `Webhook delivery ${deliveryId} not found`)
      await repo.retryNow(db, deliveryId, clock.now())
      await deps.dispatcher.runOnce()
      return (await repo.findDelivery(db, deliveryId))!.json
    },

    async events(
      query: PageRequest & {
        type?: string
        since?: string
        until?: string
        aggregateType?: string
        aggregateId?: string
      },
      caller: Caller,
    ) {
      const page = pageOf(query, await defaultPageLimit(db))
      const found = await repo.listEvents(
        db,
        {
          ...(query.type === undefined ? {} : { type: query.type }),
          ...(query.since === undefined ? {} : { since: new Date(query.since) }),
          ...(query.until === undefined ? {} : { until: new Date(query.until) }),
          ...(query.aggregateType === undefined ? {} : { aggregateType: query.aggregateType }),
          ...(query.aggregateId === undefined ? {} : { aggregateId: query.aggregateId }),
        },
        caller.sellerCodes,
        page,
      )
      return { ...found, ...page }
    },

    async event(id: string, caller: Caller) {
      const found = await repo.findEvent(db, id, caller.sellerCodes)
      if (!found) throw new AppError('EVENT_NOT_FOUND', `Event ${id} not found (events are kept 30 days)`)
      return found
    },
  }
}

export type WebhookService = ReturnType<typeof createWebhookService>
