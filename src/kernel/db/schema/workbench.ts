import { bigint, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'

/** Every workbench submission (Deep, Expert) and its result: who, what (text and its SHA-256), how it ended. */
export const queryAudits = pgTable(
  'query_audit',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    username: text('username').notNull(),
    timestamp: timestamp('timestamp', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    mode: text('mode').notNull(),
    queryHash: text('query_hash').notNull(),
    queryText: text('query_text').notNull(),
    rowCount: integer('row_count'),
    durationMs: integer('duration_ms'),
    status: text('status').notNull(),
    errorMessage: text('error_message'),
  },
  (t) => [index('query_audit_username_idx').on(t.username, t.id), index('query_audit_timestamp_idx').on(t.timestamp)],
)

/**
 * The workbench governor's count of queries per user and minute, shared by every instance: a slot is taken by a
 * conditional upsert, so two instances cannot both hand out the last one.
 */
export const workbenchUsage = pgTable(
  'workbench_usage',
  {
    username: text('username').notNull(),
    minute: timestamp('minute', { withTimezone: true, mode: 'date' }).notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.username, t.minute] })],
)
