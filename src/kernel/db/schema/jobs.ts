import { bigint, integer, jsonb, text, timestamp, boolean, uniqueIndex, index } from 'drizzle-orm/pg-core'
import { pgTable } from 'drizzle-orm/pg-core'
import { codedColumns, refColumn } from './columns.ts'

/** A process of Obol: API, worker or both. Heartbeats prove it is alive. */
export const appInstances = pgTable('app_instance', {
  id: text('id').primaryKey(),
  hostname: text('hostname').notNull(),
  pid: integer('pid').notNull(),
  roles: text('roles').notNull(),
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  stoppedAt: timestamp('stopped_at', { withTimezone: true, mode: 'date' }),
})

/** A configured job: a registered job type, its parameters and an optional EJB-style timer. */
export const jobInstances = pgTable('job_instance', {
  ...codedColumns(),
  jobType: text('job_type').notNull(),
  parameters: jsonb('parameters').$type<Record<string, unknown>>().notNull().default({}),
  timer: jsonb('timer').$type<Record<string, string>>(),
  active: boolean('active').notNull().default(true),
  nextFireAt: timestamp('next_fire_at', { withTimezone: true, mode: 'date' }),
  lastFireAt: timestamp('last_fire_at', { withTimezone: true, mode: 'date' }),
})

export const jobExecutions = pgTable(
  'job_execution',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    jobInstanceId: refColumn('job_instance_id')
      .notNull()
      .references(() => jobInstances.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    trigger: text('trigger').notNull(),
    fireTime: timestamp('fire_time', { withTimezone: true, mode: 'date' }),
    queuedAt: timestamp('queued_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
    processedCount: integer('processed_count').notNull().default(0),
    failedCount: integer('failed_count').notNull().default(0),
    error: text('error'),
    appInstanceId: text('app_instance_id'),
    requestedBy: text('requested_by'),
  },
  (t) => [
    index('job_execution_instance_idx').on(t.jobInstanceId, t.id),
    // A timer's due time is claimed once: the unique pair makes a second claim fail.
    uniqueIndex('job_execution_fire_uq').on(t.jobInstanceId, t.fireTime),
  ],
)
