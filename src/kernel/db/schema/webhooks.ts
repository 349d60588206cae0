import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { auditColumns, idColumn, refColumn } from './columns.ts'
import { events } from './events.ts'
import { secrets } from './iam.ts'

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * An HTTPS endpoint that receives the events of the types it subscribes to (`*`: all), signed with its secret (kept
 * in the secrets schema). `seller_codes`: the sellers whose events it receives, copied from a seller-restricted
 * creator (null: every event). `failing_since`: the first failure since its last success (5 days: disabled).
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoint',
  {
    id: idColumn(),
    url: text('url').notNull(),
    description: text('description'),
    eventTypes: text('event_types').array().notNull(),
    active: boolean('active').notNull().default(true),
    sellerCodes: text('seller_codes').array(),
    disabledReason: text('disabled_reason'),
    failingSince: instant('failing_since'),
    ...auditColumns(),
  },
  (t) => [index('webhook_endpoint_active_idx').on(t.active)],
)

/**
 * The secrets of an endpoint: the current one (`expires_at` null) and, for 24 hours after a rotation, the previous
 * one; both sign. Not queryable, never granted to the query roles.
 */
export const webhookSecrets = secrets.table(
  'webhook_secret',
  {
    id: idColumn(),
    endpointId: refColumn('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    secret: text('secret').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
    expiresAt: instant('expires_at'),
  },
  (t) => [index('webhook_secret_endpoint_idx').on(t.endpointId)],
)

export const DELIVERY_STATUSES = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED'] as const

/**
 * One event to one endpoint: PENDING until its first attempt, RETRYING between attempts, then SUCCEEDED or FAILED.
 * `lease_until`: the instance `leased_by` attempting it holds it until then, or until that instance stops
 * heartbeating (a dead instance's deliveries are sent again: at least once).
 */
export const webhookDeliveries = pgTable(
  'webhook_delivery',
  {
    id: idColumn(),
    eventId: refColumn('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    endpointId: refColumn('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    status: text('status').notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at'),
    leaseUntil: instant('lease_until'),
    leasedBy: text('leased_by'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    created: instant('created').notNull().defaultNow(),
  },
  (t) => [
    check('webhook_delivery_status_valid', sql`${t.status} in ('PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED')`),
    // The dispatcher reads the due deliveries only.
    index('webhook_delivery_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} in ('PENDING', 'RETRYING')`),
    index('webhook_delivery_endpoint_idx').on(t.endpointId, t.id),
    index('webhook_delivery_event_idx').on(t.eventId),
  ],
)

/** One attempt of a delivery: when, how long, the status code (or the error) and the first 2 KB of the answer. */
export const webhookAttempts = pgTable(
  'webhook_attempt',
  {
    id: idColumn(),
    deliveryId: refColumn('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: instant('attempted_at').notNull(),
    durationMs: integer('duration_ms').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    responseBody: text('response_body'),
  },
  (t) => [index('webhook_attempt_delivery_idx').on(t.deliveryId)],
)
