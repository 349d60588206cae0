import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { auditColumns, idColumn, refColumn } from './columns.ts'
import { billingCycles } from './reference.ts'

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

const AUTO_ACTIONS = sql.raw(`('MOVE', 'CANCEL', 'CANCEL_RT', 'AUTOMATIC_VALIDATION', 'MANUAL_ACTION')`)
const PROCESS_TYPES = sql.raw(`('AUTOMATIC', 'MANUAL', 'FULL_AUTOMATIC')`)

/**
 * A billing run schedule: its cadence (one-time at `start_date`, or an EJB cron bounded by start and end), the
 * options of the bill runs it creates, and its own timer (`next_fire_date`, claimed by the schedule loop).
 */
export const billingRunSchedules = pgTable(
  'billing_run_schedule',
  {
    id: idColumn(),
    code: text('code').notNull().unique(),
    name: text('name').notNull(),
    repeats: text('repeats').notNull(),
    cron: jsonb('cron').$type<Record<string, string>>(),
    startDate: instant('start_date'),
    endDate: instant('end_date'),
    processType: text('process_type').notNull(),
    lastTransactionDate: instant('last_transaction_date'),
    invoiceDate: instant('invoice_date'),
    rejectAutoAction: text('reject_auto_action'),
    suspectAutoAction: text('suspect_auto_action'),
    generateAO: boolean('generate_ao').notNull().default(false),
    computeDatesAtValidation: boolean('compute_dates_at_validation').notNull().default(false),
    status: text('status').notNull(),
    nextFireDate: instant('next_fire_date'),
    lastFireDate: instant('last_fire_date'),
    ...auditColumns(),
  },
  (t) => [
    check('billing_run_schedule_repeats_valid', sql`${t.repeats} in ('NONE', 'DAILY', 'WEEKLY', 'MONTHLY')`),
    check('billing_run_schedule_status_valid', sql`${t.status} in ('ACTIVE', 'PAUSED', 'COMPLETED')`),
    check('billing_run_schedule_process_type_valid', sql`${t.processType} in ${PROCESS_TYPES}`),
    check('billing_run_schedule_reject_action_valid', sql`${t.rejectAutoAction} in ${AUTO_ACTIONS}`),
    check('billing_run_schedule_suspect_action_valid', sql`${t.suspectAutoAction} in ${AUTO_ACTIONS}`),
    // The schedule loop reads only active schedules whose timer is due.
    index('billing_run_schedule_due_idx')
      .on(t.nextFireDate)
      .where(sql`${t.status} = 'ACTIVE'`),
  ],
)

/** The billing cycles a schedule bills, in the order given. A cycle in use by a schedule cannot be deleted. */
export const billingRunScheduleCycles = pgTable(
  'billing_run_schedule_cycle',
  {
    id: idColumn(),
    scheduleId: refColumn('schedule_id')
      .notNull()
      .references(() => billingRunSchedules.id, { onDelete: 'cascade' }),
    billingCycleId: refColumn('billing_cycle_id')
      .notNull()
      .references(() => billingCycles.id),
    position: integer('position').notNull(),
  },
  (t) => [
    unique('billing_run_schedule_cycle_uq').on(t.scheduleId, t.billingCycleId),
    index('billing_run_schedule_cycle_cycle_idx').on(t.billingCycleId),
  ],
)

/** One firing of a schedule: by its timer (at a due time) or by runNow. */
export const billingRunScheduleFirings = pgTable(
  'billing_run_schedule_firing',
  {
    id: idColumn(),
    scheduleId: refColumn('schedule_id')
      .notNull()
      .references(() => billingRunSchedules.id, { onDelete: 'cascade' }),
    fireTime: instant('fire_time').notNull(),
    trigger: text('trigger').notNull(),
    firedAt: instant('fired_at').notNull().defaultNow(),
    /** The application instance (timer) or the user (runNow) that fired it. */
    firedBy: text('fired_by'),
  },
  (t) => [
    check('billing_run_schedule_firing_trigger_valid', sql`${t.trigger} in ('TIMER', 'RUN_NOW')`),
    // A due time is fired once: whichever instance inserts this row first creates the bill runs.
    uniqueIndex('billing_run_schedule_firing_timer_uq')
      .on(t.scheduleId, t.fireTime)
      .where(sql`${t.trigger} = 'TIMER'`),
  ],
)

/** A bill run: one billing cycle, its dates and options, and the aggregation rules it applies. */
export const billingRuns = pgTable(
  'billing_run',
  {
    id: idColumn(),
    description: text('description'),
    status: text('status').notNull().default('NEW'),
    billingCycleId: refColumn('billing_cycle_id')
      .notNull()
      .references(() => billingCycles.id),
    processType: text('process_type').notNull(),
    processDate: instant('process_date').notNull().defaultNow(),
    lastTransactionDate: instant('last_transaction_date').notNull(),
    invoiceDate: instant('invoice_date').notNull(),
    rejectAutoAction: text('reject_auto_action'),
    suspectAutoAction: text('suspect_auto_action'),
    generateAO: boolean('generate_ao').notNull().default(false),
    computeDatesAtValidation: boolean('compute_dates_at_validation').notNull().default(false),
    ignoreOrders: boolean('ignore_orders').notNull().default(false),
    ignoreSubscriptions: boolean('ignore_subscriptions').notNull().default(false),
    dateAggregation: text('date_aggregation').notNull().default('NONE'),
    discountAggregation: boolean('discount_aggregation').notNull().default(true),
    disableAggregation: boolean('disable_aggregation').notNull().default(false),
    /** The schedule that created this run (kept when the schedule is deleted); null for one-off runs. */
    scheduleCode: text('schedule_code'),
    firingId: refColumn('firing_id').references(() => billingRunScheduleFirings.id, { onDelete: 'set null' }),
    /**
     * The step running (CREATING_INVOICE_LINES, CREATING_INVOICES, VALIDATING, CANCELLING), null when the run waits
     * for a person or is done. `cursor` is the last billing account (by id; by code while validating) the step has
     * finished, `done` and `total` its progress in billing accounts: a step resumes after its last committed batch.
     */
    step: text('step'),
    cursor: text('cursor'),
    progressDone: integer('progress_done').notNull().default(0),
    progressTotal: integer('progress_total').notNull().default(0),
    startedAt: instant('started_at'),
    endedAt: instant('ended_at'),
    /** A person (or FULL_AUTOMATIC) asked for the validation step: the run is VALIDATED once no draft is left. */
    validationRequested: boolean('validation_requested').notNull().default(false),
    /** The cancel's choice for the operations of the run: REOPEN or CANCEL. */
    cancelMode: text('cancel_mode'),
    invoiceLineCount: integer('invoice_line_count').notNull().default(0),
    walletOperationCount: integer('wallet_operation_count').notNull().default(0),
    /** MOVE: the run invoices were moved to; the run a moved-in invoice came from. */
    nextBillRunId: refColumn('next_bill_run_id'),
    originBillRunId: refColumn('origin_bill_run_id'),
    lastError: text('last_error'),
    ...auditColumns(),
  },
  (t) => [
    check(
      'billing_run_status_valid',
      sql`${t.status} in ('NEW', 'INVOICE_LINES_CREATED', 'DRAFT_INVOICES', 'REJECTED', 'VALIDATED', 'CANCELLED')`,
    ),
    check(
      'billing_run_step_valid',
      sql`${t.step} in ('CREATING_INVOICE_LINES', 'CREATING_INVOICES', 'VALIDATING', 'CANCELLING')`,
    ),
    check('billing_run_cancel_mode_valid', sql`${t.cancelMode} in ('REOPEN', 'CANCEL')`),
    check('billing_run_process_type_valid', sql`${t.processType} in ${PROCESS_TYPES}`),
    check('billing_run_reject_action_valid', sql`${t.rejectAutoAction} in ${AUTO_ACTIONS}`),
    check('billing_run_suspect_action_valid', sql`${t.suspectAutoAction} in ${AUTO_ACTIONS}`),
    check('billing_run_date_aggregation_valid', sql`${t.dateAggregation} in ('NONE', 'DAY', 'WEEK', 'MONTH')`),
    index('billing_run_firing_idx').on(t.firingId),
    index('billing_run_cycle_idx').on(t.billingCycleId),
    index('billing_run_schedule_code_idx').on(t.scheduleCode),
    // The chain's own work: runs of a cycle not past their lines step, oldest first.
    index('billing_run_cycle_status_idx').on(t.billingCycleId, t.status, t.id),
  ],
)
