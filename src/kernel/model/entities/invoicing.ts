import * as t from '../../db/schema/index.ts'
import { INVOICE_STATUSES, INVOICE_TYPES } from '../../db/schema/invoicing.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

const invoices = 'billing.invoices'

/** Invoices and credit notes, their lines and taxes, validation rules, sequences, accounting operations. */
export const invoicingEntities = [
  defineEntity({
    name: 'Invoice',
    package: 'billing',
    table: t.invoices,
    resource: invoices,
    business: true,
    sellerPath: 'seller',
    fields: {
      invoiceType: { enum: INVOICE_TYPES, readOnly: true },
      status: { enum: INVOICE_STATUSES, readOnly: true },
      invoiceNumber: { readOnly: true },
      validatedAt: { readOnly: true },
      pdfFile: { readOnly: true },
      pdfSha256: { readOnly: true },
    },
    relations: {
      billingRun: manyToOne('BillingRun', 'billingRunId', { readOnly: true }),
      billingAccount: manyToOne('BillingAccount', 'billingAccountId', { readOnly: true }),
      customerAccount: manyToOne('CustomerAccount', 'customerAccountId', { readOnly: true }),
      seller: manyToOne('Seller', 'sellerId', { readOnly: true }),
      currency: manyToOne('TradingCurrency', 'currencyId', { readOnly: true }),
      originalInvoice: manyToOne('Invoice', 'originalInvoiceId', { readOnly: true }),
      movedFromRun: manyToOne('BillingRun', 'movedFromRunId', { readOnly: true }),
      lines: oneToMany('InvoiceLine', 'invoice'),
      taxes: oneToMany('InvoiceTax', 'invoice'),
      creditNotes: oneToMany('Invoice', 'originalInvoice'),
    },
  }),
  defineEntity({
    name: 'InvoiceLine',
    package: 'billing',
    table: t.invoiceLines,
    resource: invoices,
    business: true,
    sellerPath: 'seller',
    relations: {
      billingRun: manyToOne('BillingRun', 'billingRunId', { readOnly: true }),
      invoice: manyToOne('Invoice', 'invoiceId', { readOnly: true }),
      billingAccount: manyToOne('BillingAccount', 'billingAccountId', { readOnly: true }),
      seller: manyToOne('Seller', 'sellerId', { readOnly: true }),
      currency: manyToOne('TradingCurrency', 'currencyId', { readOnly: true }),
      accountingArticle: manyToOne('AccountingArticle', 'accountingArticleId', { readOnly: true }),
      tax: manyToOne('Tax', 'taxId', { readOnly: true }),
      subscription: manyToOne('Subscription', 'subscriptionId', { readOnly: true }),
      order: manyToOne('Order', 'orderId', { readOnly: true }),
      discountPlanItem: manyToOne('DiscountPlanItem', 'discountPlanItemId', { readOnly: true }),
      discountedLine: manyToOne('InvoiceLine', 'discountedLineId', { readOnly: true }),
      creditedLine: manyToOne('InvoiceLine', 'creditedLineId', { readOnly: true }),
    },
  }),
  defineEntity({
    name: 'InvoiceTax',
    package: 'billing',
    table: t.invoiceTaxes,
    resource: invoices,
    business: true,
    sellerPath: 'invoice.seller',
    relations: {
      invoice: manyToOne('Invoice', 'invoiceId', { readOnly: true }),
      tax: manyToOne('Tax', 'taxId', { readOnly: true }),
    },
  }),
  defineEntity({
    name: 'InvoiceValidationRule',
    package: 'billing',
    table: t.invoiceValidationRules,
    resource: invoices,
    fields: { invoiceType: { enum: INVOICE_TYPES }, failStatus: { enum: ['SUSPECT', 'REJECTED'] } },
  }),
  defineEntity({
    name: 'InvoiceSequence',
    package: 'billing',
    table: t.invoiceSequences,
    resource: invoices,
    fields: { invoiceType: { enum: INVOICE_TYPES }, resetEach: { enum: ['NEVER', 'YEAR', 'MONTH'] } },
    relations: {
      seller: manyToOne('Seller', 'sellerId'),
      counters: oneToMany('InvoiceSequenceCounter', 'sequence'),
    },
  }),
  defineEntity({
    name: 'InvoiceSequenceCounter',
    package: 'billing',
    table: t.invoiceSequenceCounters,
    resource: invoices,
    fields: { value: { readOnly: true } },
    relations: { sequence: manyToOne('InvoiceSequence', 'sequenceId', { readOnly: true }) },
  }),
  defineEntity({
    name: 'AccountOperation',
    package: 'payment',
    table: t.accountOperations,
    resource: 'finance.accountReceivables',
    business: true,
    sellerPath: 'seller',
    fields: {
      type: { enum: INVOICE_TYPES, readOnly: true },
      direction: { enum: ['DEBIT', 'CREDIT'], readOnly: true },
    },
    relations: {
      customerAccount: manyToOne('CustomerAccount', 'customerAccountId', { readOnly: true }),
      seller: manyToOne('Seller', 'sellerId', { readOnly: true }),
      invoice: manyToOne('Invoice', 'invoiceId', { readOnly: true }),
      currency: manyToOne('TradingCurrency', 'currencyId', { readOnly: true }),
    },
  }),
]
