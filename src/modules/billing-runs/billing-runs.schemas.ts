import { Type, type Static } from 'typebox'
import { decimalOut } from '../../kernel/decimal-json.ts'
import { SCHEDULE_FIELDS } from '../../kernel/jobs/schedule-expression.ts'
import { AUTO_ACTIONS, DATE_AGGREGATIONS, PROCESS_TYPES, REPEATS } from './billing-run-values.ts'

type JsonSchema = Record<string, unknown>

const DATE_DESCRIPTION =
  'ISO-8601 date-time (2026-03-01T00:00:00Z) or date (2026-03-01); without an offset, in the tenant time zone'
const dateInput = (description: string) =>
  Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 64, description }))
const instant: JsonSchema = { type: ['string', 'null'], description: 'ISO-8601 instant, UTC' }
const nullableString: JsonSchema = { type: ['string', 'null'] }
const flag = (description?: string) => Type.Optional(Type.Boolean(description === undefined ? {} : { description }))

// Enumerated values are checked by the service, which answers with the codes of the contract (INVALID_REPEATS, …).
const enumInput = (values: readonly string[]) =>
  Type.Optional(Type.String({ maxLength: 100, description: `one of ${values.join(', ')}` }))
const nullableEnumInput = (values: readonly string[]) =>
  Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      maxLength: 100,
      description: `one of ${values.join(', ')}`,
    }),
  )

const cronInput = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  additionalProperties: false,
  description:
    'Jakarta EJB ScheduleExpression, evaluated in the tenant time zone: values, *, lists, ranges, x/y increments ' +
    '(second, minute, hour), Last, -3, 1st Mon..Last Fri, month and day names. Omitted fields: second, minute and ' +
    'hour 0, the others *. Invalid syntax → 400 INVALID_CRON naming the field.',
  // Values are checked by the evaluator, so a wrong value or type is INVALID_CRON naming the field.
  properties: Object.fromEntries(SCHEDULE_FIELDS.map((field) => [field, { maxLength: 200 }])),
})

/** Create (`name` and every field) or partial update (no `name`: it is the code). */
export function scheduleBody(create: boolean) {
  return Type.Object(
    {
      repeats: nullableEnumInput(REPEATS),
      cron: Type.Optional(cronInput),
      startDate: dateInput(`one-time: the firing date-time; recurring: start of the range. ${DATE_DESCRIPTION}`),
      endDate: dateInput(`recurring: end of the range. ${DATE_DESCRIPTION}`),
      billingCycleCodes: Type.Optional(
        Type.Unsafe<string[] | null>({
          type: ['array', 'null'],
          maxItems: 200,
          uniqueItems: true,
          items: { type: 'string', minLength: 1, maxLength: 255 },
          description: 'the billing cycles each firing bills, one bill run per cycle',
        }),
      ),
      processType: nullableEnumInput(PROCESS_TYPES),
      lastTransactionDate: dateInput(`default: each cycle's lastTransactionDateDelay. ${DATE_DESCRIPTION}`),
      invoiceDate: dateInput(`default: each cycle's invoiceDateDelay. ${DATE_DESCRIPTION}`),
      rejectAutoAction: nullableEnumInput(AUTO_ACTIONS),
      suspectAutoAction: nullableEnumInput(AUTO_ACTIONS),
      generateAO: flag('create accounting entries for each invoice'),
      computeDatesAtValidation: flag('recompute the dates at the validation step'),
      active: flag('false: the schedule is (created) PAUSED; true: ACTIVE'),
      name: Type.Optional(
        Type.Unsafe<string | null>({
          type: ['string', 'null'],
          maxLength: 300,
          description: create
            ? 'required; becomes the schedule code (letters, digits, _, . and -)'
            : 'optional; must equal the code (a schedule cannot be renamed)',
        }),
      ),
    },
    { additionalProperties: false },
  )
}

/** A schedule's request body after schema validation: types are right, values are not checked yet. */
export type ScheduleBody = Static<ReturnType<typeof scheduleBody>>

const auditable: JsonSchema = {
  type: 'object',
  required: ['created', 'updated', 'creator', 'updater'],
  properties: { created: instant, updated: instant, creator: nullableString, updater: nullableString },
}

/** A view whose every field is written, null when unset (billing-runs.repository.ts, scheduleJson and billRunJson). */
const everyField = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  additionalProperties: true,
  required: Object.keys(properties),
  properties,
})

export const scheduleView = everyField({
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
})

export const billRunBody = Type.Object(
  {
    billingCycle: Type.String({ minLength: 1, maxLength: 255, description: 'code of the billing cycle to bill' }),
    description: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 2000 })),
    processType: enumInput(PROCESS_TYPES),
    lastTransactionDate: dateInput(`default: now + the cycle's lastTransactionDateDelay days`),
    invoiceDate: dateInput(`default: now + the cycle's invoiceDateDelay days`),
    rejectAutoAction: nullableEnumInput(AUTO_ACTIONS),
    suspectAutoAction: nullableEnumInput(AUTO_ACTIONS),
    generateAO: flag(),
    computeDatesAtValidation: flag(),
    ignoreOrders: flag("aggregation rule; default: the cycle's"),
    ignoreSubscriptions: flag("aggregation rule; default: the cycle's"),
    dateAggregation: Type.Optional(
      Type.Unsafe<string>({ type: 'string', enum: [...DATE_AGGREGATIONS], description: "default: the cycle's" }),
    ),
    discountAggregation: flag("aggregation rule; default: the cycle's"),
    disableAggregation: flag("aggregation rule; default: the cycle's"),
  },
  { additionalProperties: false },
)

/** A one-off bill run request: a billing cycle, optional dates and options, and its own aggregation rules. */
export type BillRunBody = Static<typeof billRunBody>

export const billRunView = everyField({
  id: { type: 'integer' },
  description: nullableString,
  status: {
    type: 'string',
    enum: ['NEW', 'INVOICE_LINES_CREATED', 'DRAFT_INVOICES', 'REJECTED', 'VALIDATED', 'CANCELLED'],
    description: 'NEW when created; then the chain of invoicing-events.md §3.1',
  },
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
  progress: {
    type: 'object',
    additionalProperties: false,
    required: ['step', 'done', 'total', 'startedAt', 'endedAt'],
    description: 'the step running (null: waiting for a person, or done) and its billing accounts (invoices) done',
    properties: {
      step: {
        type: ['string', 'null'],
        enum: ['CREATING_INVOICE_LINES', 'CREATING_INVOICES', 'VALIDATING', 'CANCELLING', null],
      },
      done: { type: 'integer' },
      total: { type: 'integer' },
      startedAt: instant,
      endedAt: instant,
    },
  },
  counts: {
    type: 'object',
    additionalProperties: false,
    required: ['invoices', 'invoiceLines', 'walletOperations'],
    properties: {
      invoices: {
        type: 'object',
        additionalProperties: { type: 'integer' },
        description: 'invoices by status (a status without invoice is absent)',
      },
      invoiceLines: { type: 'integer' },
      walletOperations: { type: 'integer', description: 'wallet operations billed' },
    },
  },
  amountWithoutTax: { ...decimalOut, description: 'over its invoices that are not CANCELLED' },
  amountTax: decimalOut,
  amountWithTax: decimalOut,
  nextBillRunId: { type: ['integer', 'null'], description: 'where MOVE put invoices' },
  originBillRunId: { type: ['integer', 'null'], description: 'the run whose invoices were moved here' },
  lastError: { type: ['string', 'null'], description: 'the message of a step that failed (it is retried)' },
  allowedActions: {
    type: 'array',
    items: { type: 'string', enum: ['advance', 'cancel'] },
    description: 'what POST …/advance and …/cancel accept in the present state (empty when nothing does)',
  },
  auditable,
})

const page = (items: JsonSchema, required: string[]): JsonSchema => ({
  type: 'object',
  required,
  properties: {
    total: { type: 'integer' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    data: { type: 'array', items },
  },
})

// A schedule list without `limit` in its query is every schedule, and says no limit.
export const scheduleList = page(scheduleView, ['total', 'offset', 'data'])
export const billRunList = page(billRunView, ['total', 'offset', 'limit', 'data'])

export const runNowView: JsonSchema = {
  type: 'object',
  required: ['schedule', 'billingRuns'],
  properties: {
    schedule: scheduleView,
    billingRuns: { type: 'array', items: billRunView, description: 'the bill runs this firing created' },
  },
}

const pageProperties = {
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'at most 1000; schedules: absent means all' })),
}

export const scheduleListQuery = Type.Object(pageProperties, { additionalProperties: false })

export const billRunListQuery = Type.Object(
  {
    ...pageProperties,
    scheduleCode: Type.Optional(Type.String({ maxLength: 255 })),
    billingCycle: Type.Optional(Type.String({ maxLength: 255 })),
    status: Type.Optional(Type.String({ maxLength: 50 })),
  },
  { additionalProperties: false },
)

export type BillRunQuery = Static<typeof billRunListQuery>

export const idParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) })
