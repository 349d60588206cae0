import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  numeric,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { auditColumns, idColumn, refColumn } from './columns.ts'
import { billingAccounts, customerAccounts, sellers } from './accounts.ts'
import { accountingArticles, taxes, tradingCurrencies } from './reference.ts'
import { billingRuns } from './billing-runs.ts'
import { discountPlanItems } from './discounts.ts'
import { orders, subscriptions } from './ordering.ts'

/** Amounts and quantities: exact decimals, stored as computed (amounts rounded to the currency's minor unit). */
const decimal = (name: string) => numeric(name)
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
const day = (name: string) => date(name, { mode: 'string' })

export const INVOICE_STATUSES = ['DRAFT', 'SUSPECT', 'REJECTED', 'VALIDATED', 'CANCELLED'] as const
export const INVOICE_TYPES = ['INVOICE', 'CREDIT_NOTE'] as const
const list = (values: readonly string[]) => sql.raw(`(${values.map((v) => `'${v}'`).join(', ')})`)

/**
 * An invoice or a credit note (`invoice_type`). A bill run creates one invoice per billing account, seller and
 * currency (the partial unique key: a cancelled invoice no longer holds its place); a credit note belongs to no run
 * and names the invoice it corrects. Amounts are the totals rule's (invoicing/invoice-totals.ts) over its lines;
 * `invoice_number` is null until VALIDATED, then taken from the seller's sequence in the validating transaction.
 */
export const invoices = pgTable(
  'invoice',
  {
    id: idColumn(),
    invoiceNumber: text('invoice_number').unique(),
    invoiceType: text('invoice_type').notNull().default('INVOICE'),
    status: text('status').notNull().default('DRAFT'),
    rejectedByRule: text('rejected_by_rule'),
    rejectReason: text('reject_reason'),
    billingRunId: refColumn('billing_run_id').references(() => billingRuns.id),
    billingAccountId: refColumn('billing_account_id')
      .notNull()
      .references(() => billingAccounts.id),
    customerAccountId: refColumn('customer_account_id')
      .notNull()
      .references(() => customerAccounts.id),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
    currencyId: refColumn('currency_id')
      .notNull()
      .references(() => tradingCurrencies.id),
    invoiceDate: day('invoice_date').notNull(),
    dueDate: day('due_date').notNull(),
    periodStart: day('period_start'),
    periodEnd: day('period_end'),
    amountWithoutTax: decimal('amount_without_tax').notNull().default('0'),
    amountTax: decimal('amount_tax').notNull().default('0'),
    amountWithTax: decimal('amount_with_tax').notNull().default('0'),
    /** Credit notes: the invoice corrected, and why. */
    originalInvoiceId: refColumn('original_invoice_id').references((): AnyPgColumn => invoices.id),
    reason: text('reason'),
    /** An invoice moved in by MOVE: the run it came from (it waits for a person there). */
    movedFromRunId: refColumn('moved_from_run_id'),
    validatedAt: instant('validated_at'),
    /** The stored PDF (EXPORT_DIR-relative path) and its SHA-256, once rendered. */
    pdfFile: text('pdf_file'),
    pdfSha256: text('pdf_sha256'),
    ...auditColumns(),
  },
  (t) => [
    check('invoice_status_valid', sql`${t.status} in ${list(INVOICE_STATUSES)}`),
    check('invoice_type_valid', sql`${t.invoiceType} in ${list(INVOICE_TYPES)}`),
    check('invoice_number_when_validated', sql`(${t.status} = 'VALIDATED') = (${t.invoiceNumber} is not null)`),
    // At most one invoice per run, billing account, seller, currency and type (DECISIONS §3.3 of invoicing).
    uniqueIndex('invoice_run_key_uq')
      .on(t.billingRunId, t.billingAccountId, t.sellerId, t.currencyId, t.invoiceType)
      .where(sql`${t.billingRunId} is not null and ${t.status} <> 'CANCELLED'`),
    index('invoice_billing_run_status_idx').on(t.billingRunId, t.status),
    index('invoice_billing_account_idx').on(t.billingAccountId, t.invoiceDate),
    index('invoice_seller_idx').on(t.sellerId),
    index('invoice_customer_account_idx').on(t.customerAccountId),
    index('invoice_original_idx').on(t.originalInvoiceId),
    index('invoice_date_idx').on(t.invoiceDate),
  ],
)

/**
 * An invoice line: the wallet operations of one group key (billing account, seller, currency, article, tax and rate,
 * unit price, and subscription, order, usage day/week/month and discount item unless aggregated over), summed.
 * A credit note's lines credit lines of the original (`credited_line_id`) and belong to no run.
 */
export const invoiceLines = pgTable(
  'invoice_line',
  {
    id: idColumn(),
    billingRunId: refColumn('billing_run_id').references(() => billingRuns.id),
    invoiceId: refColumn('invoice_id').references(() => invoices.id),
    billingAccountId: refColumn('billing_account_id')
      .notNull()
      .references(() => billingAccounts.id),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
    currencyId: refColumn('currency_id')
      .notNull()
      .references(() => tradingCurrencies.id),
    accountingArticleId: refColumn('accounting_article_id')
      .notNull()
      .references(() => accountingArticles.id),
    taxId: refColumn('tax_id')
      .notNull()
      .references(() => taxes.id),
    taxPercent: numeric('tax_percent', { precision: 9, scale: 4 }).notNull(),
    subscriptionId: refColumn('subscription_id').references(() => subscriptions.id),
    orderId: refColumn('order_id').references(() => orders.id),
    label: text('label').notNull(),
    quantity: decimal('quantity').notNull(),
    unitAmountWithoutTax: decimal('unit_amount_without_tax').notNull(),
    amountWithoutTax: decimal('amount_without_tax').notNull(),
    amountTax: decimal('amount_tax').notNull(),
    amountWithTax: decimal('amount_with_tax').notNull(),
    periodStart: day('period_start').notNull(),
    periodEnd: day('period_end').notNull(),
    walletOperationCount: integer('wallet_operation_count').notNull().default(0),
    discountPlanItemId: refColumn('discount_plan_item_id').references(() => discountPlanItems.id),
    /** A discount line (discountAggregation false): the line it discounts. */
    discountedLineId: bigint('discounted_line_id', { mode: 'number' }),
    /** A credit note's line: the invoice line it credits. */
    creditedLineId: bigint('credited_line_id', { mode: 'number' }),
    created: instant('created').notNull().defaultNow(),
  },
  (t) => [
    index('invoice_line_run_account_idx').on(t.billingRunId, t.billingAccountId),
    index('invoice_line_invoice_idx').on(t.invoiceId),
    index('invoice_line_seller_idx').on(t.sellerId),
  ],
)

/** An invoice's tax breakdown: per tax and rate, the base and the tax owed (the totals rule). */
export const invoiceTaxes = pgTable(
  'invoice_tax',
  {
    id: idColumn(),
    invoiceId: refColumn('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'cascade' }),
    taxId: refColumn('tax_id')
      .notNull()
      .references(() => taxes.id),
    taxPercent: numeric('tax_percent', { precision: 9, scale: 4 }).notNull(),
    base: decimal('base').notNull(),
    amount: decimal('amount').notNull(),
  },
  (t) => [unique('invoice_tax_rate_uq').on(t.invoiceId, t.taxId, t.taxPercent)],
)

/** A rule checked on every draft: when its condition (a pricing formula) is true, the invoice gets `fail_status`. */
export const invoiceValidationRules = pgTable(
  'invoice_validation_rule',
  {
    id: idColumn(),
    code: text('code').notNull().unique(),
    description: text('description'),
    priority: integer('priority').notNull().default(0),
    invoiceType: text('invoice_type').notNull().default('INVOICE'),
    condition: text('condition').notNull(),
    failStatus: text('fail_status').notNull(),
    active: boolean('active').notNull().default(true),
    validFrom: day('valid_from'),
    validTo: day('valid_to'),
    ...auditColumns(),
  },
  (t) => [
    check('invoice_validation_rule_fail_status_valid', sql`${t.failStatus} in ('SUSPECT', 'REJECTED')`),
    check('invoice_validation_rule_type_valid', sql`${t.invoiceType} in ${list(INVOICE_TYPES)}`),
  ],
)

/** The numbering of a seller's invoices of one type (no seller: the tenant default). */
export const invoiceSequences = pgTable(
  'invoice_sequence',
  {
    id: idColumn(),
    sellerId: refColumn('seller_id').references(() => sellers.id, { onDelete: 'cascade' }),
    invoiceType: text('invoice_type').notNull(),
    pattern: text('pattern').notNull(),
    resetEach: text('reset_each').notNull().default('NEVER'),
    ...auditColumns(),
  },
  (t) => [
    unique('invoice_sequence_seller_type_uq').on(t.sellerId, t.invoiceType).nullsNotDistinct(),
    check('invoice_sequence_reset_valid', sql`${t.resetEach} in ('NEVER', 'YEAR', 'MONTH')`),
    check('invoice_sequence_type_valid', sql`${t.invoiceType} in ${list(INVOICE_TYPES)}`),
  ],
)

/**
 * The last number taken of a sequence in one reset period (`period_key`: '' for NEVER, `yyyy` for YEAR, `yyyy-MM`
 * for MONTH, of the invoice date). Locked by the validating transaction: numbers have no gap and no reuse.
 */
export const invoiceSequenceCounters = pgTable(
  'invoice_sequence_counter',
  {
    id: idColumn(),
    sequenceId: refColumn('sequence_id')
      .notNull()
      .references(() => invoiceSequences.id, { onDelete: 'cascade' }),
    periodKey: text('period_key').notNull(),
    value: bigint('value', { mode: 'number' }).notNull().default(0),
  },
  (t) => [unique('invoice_sequence_counter_period_uq').on(t.sequenceId, t.periodKey)],
)

/** The receivable an invoice creates (DEBIT) or a credit note gives back (CREDIT), when its run generates them. */
export const accountOperations = pgTable(
  'account_operation',
  {
    id: idColumn(),
    type: text('operation_type').notNull(),
    direction: text('direction').notNull(),
    customerAccountId: refColumn('customer_account_id')
      .notNull()
      .references(() => customerAccounts.id),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
    invoiceId: refColumn('invoice_id')
      .notNull()
      .unique()
      .references(() => invoices.id),
    currencyId: refColumn('currency_id')
      .notNull()
      .references(() => tradingCurrencies.id),
    reference: text('reference').notNull(),
    transactionDate: day('transaction_date').notNull(),
    dueDate: day('due_date').notNull(),
    amount: decimal('amount').notNull(),
    unmatchedAmount: decimal('unmatched_amount').notNull(),
    matchingStatus: text('matching_status').notNull().default('O'),
    created: instant('created').notNull().defaultNow(),
    creator: text('creator'),
  },
  (t) => [
    check('account_operation_type_valid', sql`${t.type} in ${list(INVOICE_TYPES)}`),
    check('account_operation_direction_valid', sql`${t.direction} in ('DEBIT', 'CREDIT')`),
    index('account_operation_customer_account_idx').on(t.customerAccountId),
    index('account_operation_seller_idx').on(t.sellerId),
  ],
)
