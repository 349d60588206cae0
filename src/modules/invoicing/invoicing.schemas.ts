import { Type, type Static } from 'typebox'
import { decimalOut } from '../../kernel/decimal-json.ts'
import { PageQuery } from '../../kernel/http/pagination.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'
import { INVOICE_STATUSES, INVOICE_TYPES } from '../../kernel/db/schema/invoicing.ts'
import { BILL_RUN_STATUSES } from './bill-run.machine.ts'
import { RESET_EACH } from './sequence.model.ts'
import { decimalSchema } from '../pricing/index.ts'

export { billRunBody, billRunList, billRunListQuery, billRunView, idParams } from '../billing-runs/index.ts'
export type { BillRunBody, BillRunQuery } from '../billing-runs/index.ts'

type JsonSchema = Record<string, unknown>

const str: JsonSchema = { type: 'string' }
const nullableString: JsonSchema = { type: ['string', 'null'] }
const nullableInteger: JsonSchema = { type: ['integer', 'null'] }
const day: JsonSchema = { type: ['string', 'null'], description: 'yyyy-MM-dd' }
const instant: JsonSchema = { type: ['string', 'null'], description: 'ISO-8601 instant, UTC' }
const decimal = decimalOut
const nullableObject = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({
  type: ['object', 'null'],
  additionalProperties: false,
  required,
  properties,
})

const WALLET_OPERATIONS = ['REOPEN', 'CANCEL'] as const

/** What becomes of the billed operations of what is cancelled: OPEN again (default) or CANCELED. */
export const cancelBody = Type.Object(
  {
    walletOperations: Type.Optional(
      Type.Union(
        WALLET_OPERATIONS.map((v) => Type.Literal(v)),
        { description: 'REOPEN (default): the operations are billed by a later run; CANCEL: they are CANCELED' },
      ),
    ),
  },
  { additionalProperties: false },
)
export type CancelBody = Static<typeof cancelBody>

/** A credit note of an invoice (§4): why, and either the whole invoice or amounts of named lines. */
export const creditNoteBody = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: 2000, description: 'why the invoice is corrected (printed)' }),
    whole: Type.Optional(
      Type.Literal(true, { description: 'credit every line of the invoice, whole (or send lines instead)' }),
    ),
    lines: Type.Optional(
      Type.Array(
        Type.Object(
          {
            invoiceLine: Type.Integer({
              minimum: 1,
              maximum: Number.MAX_SAFE_INTEGER,
              description: 'the id of a line of the invoice',
            }),
            amountWithoutTax: Type.Unsafe<number | string>({
              ...decimalSchema,
              description:
                'the net to credit, more than 0, in the currency’s decimals, at most what is left of the line’s net',
            }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 1000, description: 'lines to credit in part or whole (or send whole: true)' },
      ),
    ),
  },
  { additionalProperties: false },
)
export type CreditNoteBody = Static<typeof creditNoteBody>

export const invoiceIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) })

const dayFilter = (description: string) =>
  Type.Optional(Type.String({ format: 'date', description: `${description} (yyyy-MM-dd, inclusive)` }))

export const invoiceListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Type.Union(INVOICE_STATUSES.map((s) => Type.Literal(s)))),
    invoiceType: Type.Optional(Type.Union(INVOICE_TYPES.map((s) => Type.Literal(s)))),
    billRun: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    billingAccount: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'billing account code' })),
    seller: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'seller code' })),
    invoiceDateFrom: dayFilter('invoices dated on or after'),
    invoiceDateTo: dayFilter('invoices dated on or before'),
    search: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'invoice number, or billing account code or name' }),
    ),
  },
  { additionalProperties: false },
)
export type InvoiceListQuery = Static<typeof invoiceListQuery>

export const invoiceLineView: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: nullableInteger,
    billRun: nullableInteger,
    invoice: nullableInteger,
    billingAccount: str,
    seller: str,
    subscription: nullableString,
    order: nullableString,
    accountingArticle: str,
    tax: str,
    label: str,
    quantity: decimal,
    unitAmountWithoutTax: decimal,
    amountWithoutTax: decimal,
    amountTax: decimal,
    amountWithTax: decimal,
    taxPercent: decimal,
    periodStart: day,
    periodEnd: day,
    walletOperationCount: { type: 'integer' },
    discountPlanItem: nullableString,
    discountedLine: nullableInteger,
    creditedLine: nullableInteger,
  },
  required: ['id', 'billingAccount', 'label', 'quantity', 'amountWithoutTax', 'amountTax', 'amountWithTax'],
}

const invoiceProperties: Record<string, JsonSchema> = {
  id: nullableInteger,
  invoiceNumber: { type: ['string', 'null'], description: 'null until VALIDATED' },
  invoiceType: { type: 'string', enum: [...INVOICE_TYPES] },
  status: { type: 'string', enum: [...INVOICE_STATUSES] },
  rejectedByRule: nullableString,
  rejectReason: nullableString,
  billRun: nullableInteger,
  billingAccount: str,
  billingAccountName: nullableString,
  customerAccount: str,
  seller: str,
  currency: str,
  invoiceDate: day,
  dueDate: day,
  periodStart: day,
  periodEnd: day,
  amountWithoutTax: decimal,
  amountTax: decimal,
  amountWithTax: decimal,
  taxes: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['tax', 'taxPercent', 'base', 'amount'],
      properties: { tax: str, taxPercent: decimal, base: decimal, amount: decimal },
    },
  },
  originalInvoice: nullableObject({ id: { type: 'integer' }, invoiceNumber: nullableString }, ['id']),
  reason: nullableString,
  movedFromRun: nullableInteger,
  accountOperation: nullableObject(
    {
      id: { type: 'integer' },
      type: str,
      direction: str,
      reference: str,
      transactionDate: day,
      dueDate: day,
      amount: decimal,
      unmatchedAmount: decimal,
      matchingStatus: str,
    },
    ['id', 'type', 'direction', 'amount'],
  ),
  pdf: {
    type: 'object',
    additionalProperties: false,
    required: ['available', 'sha256'],
    properties: { available: { type: 'boolean' }, sha256: nullableString },
  },
  validatedAt: instant,
  auditable: {
    type: 'object',
    additionalProperties: false,
    required: ['created', 'updated', 'creator', 'updater'],
    properties: { created: instant, updated: instant, creator: nullableString, updater: nullableString },
  },
}

const invoiceRequired = [
  'id',
  'invoiceNumber',
  'invoiceType',
  'status',
  'billingAccount',
  'seller',
  'currency',
  'invoiceDate',
  'dueDate',
  'amountWithoutTax',
  'amountTax',
  'amountWithTax',
  'taxes',
]

/** An invoice or credit note in a list: without its lines. */
export const invoiceSummary = Type.Unsafe<unknown>({
  $id: 'InvoiceSummary',
  title: 'InvoiceSummary',
  type: 'object',
  additionalProperties: false,
  required: invoiceRequired,
  properties: invoiceProperties,
})

/** An invoice or credit note with its lines (get by id, preview). */
export const invoiceView = Type.Unsafe<unknown>({
  $id: 'Invoice',
  title: 'Invoice',
  type: 'object',
  additionalProperties: false,
  required: [...invoiceRequired, 'lines', 'creditNotes'],
  properties: {
    ...invoiceProperties,
    allowedActions: {
      type: 'array',
      items: { type: 'string', enum: ['validate', 'cancel', 'move', 'credit'] },
      description:
        'what its state allows: validate, cancel, move (…/validate, …/cancel, …/move) and credit (…/creditNotes); ' +
        'absent from a preview',
    },
    lines: { type: 'array', items: invoiceLineView },
    creditNotes: {
      type: 'array',
      description: 'the credit notes of this invoice, cancelled ones included (none for a credit note)',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'invoiceNumber', 'status', 'amountWithTax'],
        properties: {
          id: { type: 'integer' },
          invoiceNumber: nullableString,
          status: { type: 'string', enum: [...INVOICE_STATUSES] },
          amountWithTax: decimal,
        },
      },
    },
  },
})

export const invoiceList = Type.Unsafe<unknown>({
  $id: 'InvoicePage',
  title: 'InvoicePage',
  type: 'object',
  additionalProperties: false,
  required: ['total', 'offset', 'limit', 'data'],
  properties: {
    total: { type: 'integer', minimum: 0 },
    offset: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1 },
    data: { type: 'array', items: invoiceSummary },
  },
})

const DATE_INPUT =
  'ISO-8601 date-time (2026-03-01T00:00:00Z) or date (2026-03-01); without an offset, in the tenant time zone'

export const previewBody = Type.Object(
  {
    lastTransactionDate: Type.Optional(
      Type.String({ maxLength: 64, description: `operations dated before it; default: the next run's. ${DATE_INPUT}` }),
    ),
    invoiceDate: Type.Optional(
      Type.String({ maxLength: 64, description: `default: the next run's invoice date. ${DATE_INPUT}` }),
    ),
  },
  { additionalProperties: false },
)
export type PreviewBody = Static<typeof previewBody>

export const previewView = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['lastTransactionDate', 'invoiceDate', 'invoices'],
  properties: {
    lastTransactionDate: { type: 'string', description: 'the operations previewed are dated before it' },
    invoiceDate: { type: 'string' },
    invoices: { type: 'array', items: invoiceView },
  },
})

export const billingAccountParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 255 }) })

export const ruleBody = (create: boolean) =>
  Type.Object(
    {
      ...(create ? { code: Type.String({ minLength: 1, maxLength: 255, pattern: CODE_PATTERN }) } : {}),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
      priority: Type.Optional(
        Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'lower runs first' }),
      ),
      invoiceType: Type.Optional(Type.Union(INVOICE_TYPES.map((s) => Type.Literal(s)))),
      condition: create
        ? Type.String({ minLength: 1, maxLength: 2000, description: 'a pricing formula, true when the rule fails' })
        : Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
      failStatus: create
        ? Type.Union([Type.Literal('SUSPECT'), Type.Literal('REJECTED')])
        : Type.Optional(Type.Union([Type.Literal('SUSPECT'), Type.Literal('REJECTED')])),
      active: Type.Optional(Type.Boolean()),
      validFrom: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()])),
      validTo: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()])),
    },
    { additionalProperties: false },
  )
export type RuleCreateBody = Static<ReturnType<typeof ruleBody>> & {
  code: string
  condition: string
  failStatus: string
}
export type RuleUpdateBody = Static<ReturnType<typeof ruleBody>>

export const ruleView = Type.Unsafe<unknown>({
  $id: 'InvoiceValidationRule',
  title: 'InvoiceValidationRule',
  type: 'object',
  additionalProperties: false,
  required: ['code', 'priority', 'invoiceType', 'condition', 'failStatus', 'active'],
  properties: {
    code: str,
    description: nullableString,
    priority: { type: 'integer' },
    invoiceType: str,
    condition: str,
    failStatus: str,
    active: { type: 'boolean' },
    validFrom: day,
    validTo: day,
  },
})

export const ruleList = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['total', 'data'],
  properties: { total: { type: 'integer' }, data: { type: 'array', items: ruleView } },
})

export const sequenceParams = Type.Object({
  seller: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'a seller code, or `default` for the tenant default',
  }),
  invoiceType: Type.Union(INVOICE_TYPES.map((s) => Type.Literal(s))),
})

export const sequenceBody = Type.Object(
  {
    pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: '{yyyy}, {yy}, {mm}, {seq:N}' })),
    resetEach: Type.Optional(Type.Union(RESET_EACH.map((s) => Type.Literal(s)))),
    currentValue: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 99_999_999_999, description: 'the last number taken in the current period' }),
    ),
  },
  { additionalProperties: false },
)
export type SequenceBody = Static<typeof sequenceBody>

export const sequenceView = Type.Unsafe<unknown>({
  $id: 'InvoiceSequence',
  title: 'InvoiceSequence',
  type: 'object',
  additionalProperties: false,
  required: ['seller', 'invoiceType', 'pattern', 'resetEach', 'currentValue', 'inherited'],
  properties: {
    seller: { type: ['string', 'null'], description: 'null: the tenant default' },
    invoiceType: str,
    pattern: str,
    resetEach: str,
    currentValue: { type: 'integer', description: 'the last number taken in the current period (0: none yet)' },
    inherited: { type: ['string', 'null'], description: 'a seller without its own: whose sequence it uses' },
  },
})

export const sequenceList = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', items: sequenceView } },
})

export const accountOperationQuery = Type.Object(
  {
    ...PageQuery,
    customerAccount: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'customer account code' })),
    invoice: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'invoice id' })),
  },
  { additionalProperties: false },
)
export type AccountOperationQuery = Static<typeof accountOperationQuery>

export const accountOperationList = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['total', 'offset', 'limit', 'data'],
  properties: {
    total: { type: 'integer' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    data: {
      type: 'array',
      items: {
        $id: 'AccountOperation',
        title: 'AccountOperation',
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type', 'direction', 'customerAccount', 'invoice', 'reference', 'amount'],
        properties: {
          id: { type: 'integer' },
          type: str,
          direction: str,
          customerAccount: str,
          seller: str,
          invoice: { type: 'integer' },
          invoiceNumber: nullableString,
          currency: str,
          reference: str,
          transactionDate: day,
          dueDate: day,
          amount: decimal,
          unmatchedAmount: decimal,
          matchingStatus: str,
          created: instant,
        },
      },
    },
  },
})

export { BILL_RUN_STATUSES }
