import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { auditColumns, idColumn, refColumn } from './columns.ts'

/** Saved report queries (ReportQueryV1) and Deep/Expert queries saved from the workbench. */
export const reportQueries = pgTable(
  'report_query',
  {
    id: idColumn(),
    code: text('code').notNull().unique(),
    description: text('description'),
    targetEntity: text('target_entity'),
    visibility: text('visibility').notNull(),
    tags: text('tags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    aliases: jsonb('aliases').$type<Record<string, string>>().notNull().default({}),
    advancedQuery: jsonb('advanced_query').$type<Record<string, unknown>>(),
    queryType: text('query_type').notNull(),
    queryText: text('query_text'),
    system: boolean('system').notNull().default(false),
    /** The creator's groups when it was created: PROTECTED queries are visible to their members. */
    ownerGroups: text('owner_groups')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    ...auditColumns(),
  },
  (t) => [index('report_query_creator_idx').on(t.creator)],
)

export const reportQueryExecutions = pgTable(
  'report_query_execution',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    reportQueryId: refColumn('report_query_id')
      .notNull()
      .references(() => reportQueries.id, { onDelete: 'cascade' }),
    executedBy: text('executed_by').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    rowCount: integer('row_count').notNull(),
    status: text('status').notNull(),
    error: text('error'),
  },
  (t) => [index('report_query_execution_query_idx').on(t.reportQueryId, t.id)],
)
