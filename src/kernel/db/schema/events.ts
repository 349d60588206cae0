import { bigint, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core'
import { idColumn, refColumn } from './columns.ts'
import { sellers } from './accounts.ts'

/**
 * The outbox: one row per state change a client may react to, written in the transaction of the change (a rolled-back
 * change leaves none). `event_id` is the public id (`evt_` and a time-ordered unique id); `sequence` counts the
 * events of one record (`aggregate_type`, `aggregate_id`) from 1, so a receiver tells which state is newer.
 */
export const events = pgTable(
  'event',
  {
    id: idColumn(),
    eventId: text('event_id').notNull().unique(),
    type: text('event_type').notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    aggregateType: text('aggregate_type').notNull(),
    aggregateId: text('aggregate_id').notNull(),
    sequence: integer('sequence').notNull(),
    data: jsonb('data').$type<{ object: unknown; previous?: Record<string, unknown> }>().notNull(),
    /** The seller the record belongs to (seller row security); null for platform records. */
    sellerId: refColumn('seller_id').references(() => sellers.id, { onDelete: 'set null' }),
  },
  (t) => [
    unique('event_aggregate_sequence_uq').on(t.aggregateType, t.aggregateId, t.sequence),
    index('event_occurred_idx').on(t.occurredAt, t.id),
    index('event_type_idx').on(t.type, t.occurredAt),
  ],
)

/** The last sequence number of each record's events: its row lock orders two events of one record. */
export const eventAggregates = pgTable(
  'event_aggregate',
  {
    id: idColumn(),
    aggregateType: text('aggregate_type').notNull(),
    aggregateId: text('aggregate_id').notNull(),
    lastSequence: bigint('last_sequence', { mode: 'number' }).notNull(),
  },
  (t) => [unique('event_aggregate_record_uq').on(t.aggregateType, t.aggregateId)],
)
