import * as t from '../../db/schema/index.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

const resource = 'billing.billingRuns'
const PROCESS_TYPES = ['AUTOMATIC', 'MANUAL', 'FULL_AUTOMATIC'] as const
const AUTO_ACTIONS = ['MOVE', 'CANCEL', 'CANCEL_RT', 'AUTOMATIC_VALIDATION', 'MANUAL_ACTION'] as const
const DATE_AGGREGATION = ['NONE', 'DAY', 'WEEK', 'MONTH'] as const
const BILL_RUN_STATUSES = [
  'NEW',
  'INVOICE_LINES_CREATED',
  'DRAFT_INVOICES',
  'REJECTED',
  'VALIDATED',
  'CANCELLED',
] as const

export const billingRunEntities = [
  defineEntity({
    name: 'BillingRunSchedule',
    package: 'billing',
    table: t.billingRunSchedules,
    resource,
    fields: {
      repeats: { enum: ['NONE', 'DAILY', 'WEEKLY', 'MONTHLY'] },
      processType: { enum: PROCESS_TYPES },
      rejectAutoAction: { enum: AUTO_ACTIONS },
      suspectAutoAction: { enum: AUTO_ACTIONS },
      status: { enum: ['ACTIVE', 'PAUSED', 'COMPLETED'], readOnly: true },
      nextFireDate: { readOnly: true },
      lastFireDate: { readOnly: true },
    },
    relations: {
      billingCycles: oneToMany('BillingRunScheduleCycle', 'schedule'),
      firings: oneToMany('BillingRunScheduleFiring', 'schedule'),
    },
  }),
  defineEntity({
    name: 'BillingRunScheduleCycle',
    package: 'billing',
    table: t.billingRunScheduleCycles,
    resource,
    relations: {
      schedule: manyToOne('BillingRunSchedule', 'scheduleId'),
      billingCycle: manyToOne('BillingCycle', 'billingCycleId'),
    },
  }),
  defineEntity({
    name: 'BillingRunScheduleFiring',
    package: 'billing',
    table: t.billingRunScheduleFirings,
    resource,
    fields: { trigger: { enum: ['TIMER', 'RUN_NOW'], readOnly: true } },
    relations: {
      schedule: manyToOne('BillingRunSchedule', 'scheduleId', { readOnly: true }),
      billingRuns: oneToMany('BillingRun', 'firing'),
    },
  }),
  defineEntity({
    name: 'BillingRun',
    package: 'billing',
    table: t.billingRuns,
    resource,
    fields: {
      processType: { enum: PROCESS_TYPES },
      rejectAutoAction: { enum: AUTO_ACTIONS },
      suspectAutoAction: { enum: AUTO_ACTIONS },
      dateAggregation: { enum: DATE_AGGREGATION },
      scheduleCode: { readOnly: true },
      processDate: { readOnly: true },
      status: { enum: BILL_RUN_STATUSES, readOnly: true },
      step: { enum: ['CREATING_INVOICE_LINES', 'CREATING_INVOICES', 'VALIDATING', 'CANCELLING'], readOnly: true },
      cursor: { readOnly: true },
      progressDone: { readOnly: true },
      progressTotal: { readOnly: true },
      startedAt: { readOnly: true },
      endedAt: { readOnly: true },
      validationRequested: { readOnly: true },
      cancelMode: { enum: ['REOPEN', 'CANCEL'], readOnly: true },
      invoiceLineCount: { readOnly: true },
      walletOperationCount: { readOnly: true },
      lastError: { readOnly: true },
    },
    relations: {
      billingCycle: manyToOne('BillingCycle', 'billingCycleId'),
      firing: manyToOne('BillingRunScheduleFiring', 'firingId', { readOnly: true }),
      nextBillRun: manyToOne('BillingRun', 'nextBillRunId', { readOnly: true }),
      originBillRun: manyToOne('BillingRun', 'originBillRunId', { readOnly: true }),
      invoices: oneToMany('Invoice', 'billingRun'),
    },
  }),
]
