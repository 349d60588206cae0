import { boolean, check, integer, text } from 'drizzle-orm/pg-core'
import { pgTable } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { auditColumns } from './columns.ts'

/** The tenant's settings: one row, id 1, created by the first migration's bootstrap. */
export const tenantSettings = pgTable(
  'tenant_setting',
  {
    id: integer('id').primaryKey().default(1),
    timeZone: text('time_zone').notNull().default('UTC'),
    roundingMode: text('rounding_mode').notNull().default('HALF_UP'),
    pricesIncludeTax: boolean('prices_include_tax').notNull().default(false),
    hugeVolumeEntities: text('huge_volume_entities')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    extractListEntities: text('extract_list_entities')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    queryStatementTimeoutMs: integer('query_statement_timeout_ms').notNull().default(30_000),
    defaultListLimit: integer('default_list_limit').notNull().default(100),
    prepaidReservationExpirationDelayMs: integer('prepaid_reservation_expiration_delay_ms').notNull().default(300_000),
    reservationSweepIntervalMs: integer('reservation_sweep_interval_ms').notNull().default(1000),
    governorMaxRowsSync: integer('governor_max_rows_sync').notNull().default(1_000),
    governorMaxRowsAsync: integer('governor_max_rows_async').notNull().default(1_000_000),
    governorMaxQueryDurationSyncSec: integer('governor_max_query_duration_sync_sec').notNull().default(30),
    governorMaxQueryDurationAsyncSec: integer('governor_max_query_duration_async_sec').notNull().default(600),
    governorMaxConcurrentAsyncPerUser: integer('governor_max_concurrent_async_per_user').notNull().default(3),
    governorMaxQueriesPerMinutePerUser: integer('governor_max_queries_per_minute_per_user').notNull().default(30),
    /** MiB one Expert export file may hold: a run past it ends FAILED and keeps no file. */
    governorMaxExportMegabytes: integer('governor_max_export_megabytes').notNull().default(100),
    /** Days an Expert export (file and record) is kept after it ended: the daily purge deletes older ones. */
    workbenchExportRetentionDays: integer('workbench_export_retention_days').notNull().default(30),
    ...auditColumns(),
  },
  (t) => [check('tenant_setting_singleton', sql`${t.id} = 1`)],
)
