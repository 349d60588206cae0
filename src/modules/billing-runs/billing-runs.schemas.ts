import { SCHEDULE_FIELDS } from '../../kernel/jobs/schedule-expression.ts'
import { AUTO_ACTIONS, DATE_AGGREGATIONS, PROCESS_TYPES, REPEATS } from './billing-runs.model.ts'

type JsonSchema = Record<string, unknown>

const DATE_DESCRIPTION =
  'ISO-8601 date-time (2026-03-01T00:00:00Z) or date (2026-03-01); without an offset, in the tenant time zone'
const dateInput: JsonSchema = { type: ['string', 'null'], maxLength: 64, description: DATE_DESCRIPTION }
const instant: JsonSchema = { type: ['string', 'null'], description: 'ISO-8601 instant, UTC' }
const nullableString: JsonSchema = { type: ['string', 'null'] }

// Enumerated values are checked by the service, which answers with the codes of the contract (INVALID_REPEATS, …).
const enumInput = (values: readonly string[], nullable: boolean): JsonSchema => ({
  type: nullable ? ['string', 'null'] : 'string',
  maxLength: 100,
  description: `one of ${values.join(', ')}`,
})

const cronInput: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  description:
    'Jakarta EJB ScheduleExpression, evaluated in the tenant time zone: values, *, lists, ranges, x/y increments ' +
    '(second, minute, hour), Last, -3, 1st Mon..Last Fri, month and day names. Omitted fields: second, minute and ' +
    'hour 0, the others *. Invalid syntax → 400 INVALID_CRON naming the field.',
  // Values are checked by the evaluator, so a wrong value or type is INVALID_CRON naming the field.
  properties: Object.fromEntries(SCHEDULE_FIELDS.map((field) => [field, { maxLength: 200 }])),
}

/** Create (`name` and every field) or partial update (no `name`: it is the code). */
export function scheduleBody(create: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    repeats: enumInput(REPEATS, true),
    cron: cronInput,
    startDate: {
      ...dateInput,
      description: `one-time: the firing date-time; recurring: start of the range. ${DATE_DESCRIPTION}`,
    },
    endDate: { ...dateInput, description: `recurring: end of the range. ${DATE_DESCRIPTION}` },
    billingCycleCodes: {
      type: ['array', 'null'],
      maxItems: 200,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 255 },
      description: 'the billing cycles each firing bills, one bill run per cycle',
    },
    processType: enumInput(PROCESS_TYPES, true),
    lastTransactionDate: {
      ...dateInput,
      description: `default: each cycle's lastTransactionDateDelay. ${DATE_DESCRIPTION}`,
    },
    invoiceDate: { ...dateInput, description: `default: each cycle's invoiceDateDelay. ${DATE_DESCRIPTION}` },
    rejectAutoAction: enumInput(AUTO_ACTIONS, true),
    suspectAutoAction: enumInput(AUTO_ACTIONS, true),
    generateAO: { type: 'boolean', description: 'create accounting entries for each invoice' },
    computeDatesAtValidation: { type: 'boolean', description: 'recompute the dates at the validation step' },
    active: { type: 'boolean', description: 'false: the schedule is (created) PAUSED; true: ACTIVE' },
  }
  properties.name = {
    type: ['string', 'null'],
    maxLength: 300,
    description: create
      ? 'required; becomes the schedule code (letters, digits, _, . and -)'
      : 'optional; must equal the code (a schedule cannot be renamed)',
  }
  return { type: 'object', additionalProperties: false, properties }
}

const auditable: JsonSchema = {
  type: 'object',
  properties: { created: instant, updated: instant, creator: nullableString, updater: nullableString },
}

export const scheduleView: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'integer' },
    code: { type: 'string' },
    name: { type: 'string' },
    repeats: { type: 'string', enum: [...REPEATS] },
    cron: { type: ['object', 'null'], additionalProperties: true },
    startDate: instant,
    endDate: instant,
    billingCycleCodes: { type: 'array', items: { type: 'string' } },
    processType: { type: 'string' },
    lastTransactionDate: instant,
    invoiceDate: instant,
    rejectAutoAction: nullableString,
    suspectAutoAction: nullableString,
    generateAO: { type: 'boolean' },
    computeDatesAtValidation: { type: 'boolean' },
    active: { type: 'boolean' },
    status: { type: 'string', enum: ['ACTIVE', 'PAUSED', 'COMPLETED'] },
    nextFireDate: instant,
    lastFireDate: instant,
    createdBillingRuns: { type: 'array', items: { type: 'integer' }, description: 'ids of the bill runs it created' },
    auditable,
  },
}

export const billRunBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['billingCycle'],
  properties: {
    billingCycle: { type: 'string', minLength: 1, maxLength: 255, description: 'code of the billing cycle to bill' },
    description: { type: ['string', 'null'], maxLength: 2000 },
    processType: enumInput(PROCESS_TYPES, false),
    lastTransactionDate: { ...dateInput, description: `default: now + the cycle's lastTransactionDateDelay days` },
    invoiceDate: { ...dateInput, description: `default: now + the cycle's invoiceDateDelay days` },
    rejectAutoAction: enumInput(AUTO_ACTIONS, true),
    suspectAutoAction: enumInput(AUTO_ACTIONS, true),
    generateAO: { type: 'boolean' },
    computeDatesAtValidation: { type: 'boolean' },
    ignoreOrders: { type: 'boolean', description: "aggregation rule; default: the cycle's" },
    ignoreSubscriptions: { type: 'boolean', description: "aggregation rule; default: the cycle's" },
    dateAggregation: { type: 'string', enum: [...DATE_AGGREGATIONS], description: "default: the cycle's" },
    discountAggregation: { type: 'boolean', description: "aggregation rule; default: the cycle's" },
    disableAggregation: { type: 'boolean', description: "aggregation rule; default: the cycle's" },
  },
}

export const billRunView: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'integer' },
    description: nullableString,
    status: { type: 'string', description: 'NEW when created; later states belong to the bill run process' },
    billingCycle: { type: 'string' },
    processType: { type: 'string' },
    processDate: { type: 'string' },
    lastTransactionDate: { type: 'string' },
    invoiceDate: { type: 'string' },
    rejectAutoAction: nullableString,
    suspectAutoAction: nullableString,
    generateAO: { type: 'boolean' },
    computeDatesAtValidation: { type: 'boolean' },
    ignoreOrders: { type: 'boolean' },
    ignoreSubscriptions: { type: 'boolean' },
    dateAggregation: { type: 'string' },
    discountAggregation: { type: 'boolean' },
    disableAggregation: { type: 'boolean' },
    scheduleCode: { type: ['string', 'null'], description: 'the schedule that created it; null for one-off runs' },
    fireTime: { ...instant, description: 'the schedule firing that created it' },
    auditable,
  },
}

const page = (items: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: {
    total: { type: 'integer' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    data: { type: 'array', items },
  },
})

export const scheduleList = page(scheduleView)
export const billRunList = page(billRunView)

export const runNowView: JsonSchema = {
  type: 'object',
  properties: {
    schedule: scheduleView,
    billingRuns: { type: 'array', items: billRunView, description: 'the bill runs this firing created' },
  },
}

const pageProperties = {
  offset: { type: 'integer', minimum: 0, default: 0 },
  limit: { type: 'integer', minimum: 1, description: 'at most 1000; schedules: absent means all' },
}

export const scheduleListQuery: JsonSchema = { type: 'object', additionalProperties: false, properties: pageProperties }

export const billRunListQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageProperties,
    scheduleCode: { type: 'string', maxLength: 255 },
    billingCycle: { type: 'string', maxLength: 255 },
    status: { type: 'string', maxLength: 50 },
  },
}

export const codeParams: JsonSchema = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', minLength: 1, maxLength: 255 } },
}

export const idParams: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
}
