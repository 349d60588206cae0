import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'

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

/**
 * An Expert (native SQL) run: pre-created with empty status and end date when submitted, then given its status,
 * line count, duration and CSV file. `app_instance_id` is the instance running it (its death ends the run FAILED);
 * `running_since` is set when the statement starts.
 */
export const queryExecutions = pgTable(
  'query_execution',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    username: text('username').notNull(),
    status: text('status'),
    startDate: timestamp('start_date', { withTimezone: true, mode: 'date' }).notNull(),
    endDate: timestamp('end_date', { withTimezone: true, mode: 'date' }),
    lineCount: integer('line_count'),
    durationMs: integer('duration_ms'),
    filePath: text('file_path'),
    queryHash: text('query_hash').notNull(),
    queryText: text('query_text').notNull(),
    /** What runs: the text with the LIMIT appended or capped. */
    statementText: text('statement_text').notNull(),
    errorMessage: text('error_message'),
    savedQueryCode: text('saved_query_code'),
    appInstanceId: text('app_instance_id').notNull(),
    runningSince: timestamp('running_since', { withTimezone: true, mode: 'date' }),
    cancelRequested: boolean('cancel_requested').notNull().default(false),
    auditId: bigint('audit_id', { mode: 'number' }),
    /** The submitter's token subject: the run reads a replica only once it has replayed past their last write. */
    readerSubject: text('reader_subject'),
    /** Data rows written so far while it runs (the final count is line_count). */
    rowsSoFar: integer('rows_so_far'),
    /** The tenant's row cap its statement was limited to (null when the submitter asked for fewer, or EXPLAIN). */
    rowCap: integer('row_cap'),
  },
  (t) => [
    index('query_execution_username_idx').on(t.username, t.id),
    index('query_execution_end_date_idx').on(t.endDate),
  ],
)
