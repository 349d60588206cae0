import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core'
import { auditColumns, codedColumns, idColumn, lowerCodeIndex, refColumn } from './columns.ts'
import { billingAccounts, sellers, userAccounts } from './accounts.ts'
import { accountingArticles, taxes, tradingCurrencies } from './reference.ts'
import { discountPlanItems, discountPlans } from './discounts.ts'
import { pricingVersions } from './pricing.ts'
import { chargeTemplates, offerTemplates, products, productVersions, serviceTemplates } from './catalog.ts'

/** Amounts, quantities and unit prices: exact decimals, stored as computed (amounts already rounded). */
const decimal = (name: string) => numeric(name)
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
const day = (name: string) => date(name, { mode: 'string' })

/**
 * An order: DRAFT (the request, with its whole discount selection, is kept) until validated; VALIDATED once its
 * subscriptions are active. `request` is the order as sent (the response echoes it); validation re-reads it.
 */
export const orders = pgTable(
  'customer_order',
  {
    ...codedColumns(),
    externalReference: text('external_reference'),
    orderType: text('order_type').notNull().default('NEW'),
    status: text('status').notNull().default('DRAFT'),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
    billingAccountId: refColumn('billing_account_id')
      .notNull()
      .references(() => billingAccounts.id),
    userAccountId: refColumn('user_account_id')
      .notNull()
      .references(() => userAccounts.id),
    orderDate: instant('order_date').notNull().defaultNow(),
    validatedAt: instant('validated_at'),
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [
    check('customer_order_status_valid', sql`${t.status} in ('DRAFT', 'VALIDATED')`),
    index('customer_order_seller_idx').on(t.sellerId),
    index('customer_order_billing_account_idx').on(t.billingAccountId),
    index('customer_order_user_account_idx').on(t.userAccountId),
    lowerCodeIndex('customer_order', t.code),
  ],
)

/** A subscription: one per order offer. CREATED while its order is a draft, ACTIVE once validated. */
export const subscriptions = pgTable(
  'subscription',
  {
    ...codedColumns(),
    status: text('status').notNull().default('CREATED'),
    subscriptionDate: day('subscription_date').notNull(),
    offerTemplateId: refColumn('offer_template_id')
      .notNull()
      .references(() => offerTemplates.id),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
    userAccountId: refColumn('user_account_id')
      .notNull()
      .references(() => userAccounts.id),
    orderId: refColumn('order_id').references(() => orders.id),
    activationDate: instant('activation_date'),
  },
  (t) => [
    check('subscription_status_valid', sql`${t.status} in ('CREATED', 'ACTIVE', 'SUSPENDED', 'TERMINATED')`),
    index('subscription_offer_idx').on(t.offerTemplateId),
    index('subscription_seller_idx').on(t.sellerId),
    index('subscription_user_account_idx').on(t.userAccountId),
    index('subscription_order_idx').on(t.orderId),
    lowerCodeIndex('subscription', t.code),
  ],
)

/** An offer of an order: the subscription it creates, at which date. */
export const orderOffers = pgTable(
  'order_offer',
  {
    id: idColumn(),
    orderId: refColumn('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    subscriptionCode: text('subscription_code').notNull(),
    orderLineType: text('order_line_type').notNull().default('CREATE'),
    offerTemplateId: refColumn('offer_template_id')
      .notNull()
      .references(() => offerTemplates.id),
    subscriptionDate: day('subscription_date').notNull(),
    subscriptionId: refColumn('subscription_id').references(() => subscriptions.id),
  },
  (t) => [
    unique('order_offer_position_uq').on(t.orderId, t.position),
    index('order_offer_offer_idx').on(t.offerTemplateId),
    index('order_offer_subscription_idx').on(t.subscriptionId),
  ],
)

/** A product of an order offer: the version used (given or selected), quantity, attribute values, overrides. */
export const orderProducts = pgTable(
  'order_product',
  {
    id: idColumn(),
    orderOfferId: refColumn('order_offer_id')
      .notNull()
      .references(() => orderOffers.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    productId: refColumn('product_id')
      .notNull()
      .references(() => products.id),
    productVersionId: refColumn('product_version_id')
      .notNull()
      .references(() => productVersions.id),
    productActionType: text('product_action_type').notNull().default('CREATE'),
    quantity: decimal('quantity').notNull(),
    attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
    chargeOverrides: jsonb('charge_overrides')
      .$type<{ chargeCode: string; unitPrice: string }[]>()
      .notNull()
      .default([]),
  },
  (t) => [
    unique('order_product_position_uq').on(t.orderOfferId, t.position),
    index('order_product_product_idx').on(t.productId),
    index('order_product_version_idx').on(t.productVersionId),
  ],
)

/** The discount plans an order selects, at order, offer or product level: stored with a draft, billed at validation. */
export const orderDiscountPlans = pgTable(
  'order_discount_plan',
  {
    id: idColumn(),
    orderId: refColumn('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    orderOfferId: refColumn('order_offer_id').references(() => orderOffers.id, { onDelete: 'cascade' }),
    orderProductId: refColumn('order_product_id').references(() => orderProducts.id, { onDelete: 'cascade' }),
    discountPlanId: refColumn('discount_plan_id')
      .notNull()
      .references(() => discountPlans.id),
    level: text('level').notNull(),
    position: integer('position').notNull(),
  },
  (t) => [
    check('order_discount_plan_level_valid', sql`${t.level} in ('ORDER', 'OFFER', 'PRODUCT')`),
    index('order_discount_plan_order_idx').on(t.orderId),
    index('order_discount_plan_offer_idx').on(t.orderOfferId),
    index('order_discount_plan_product_idx').on(t.orderProductId),
    index('order_discount_plan_plan_idx').on(t.discountPlanId),
  ],
)

/** A product as subscribed: the product version instantiated, its quantity and attribute values. */
export const productInstances = pgTable(
  'product_instance',
  {
    id: idColumn(),
    code: text('code').notNull(),
    subscriptionId: refColumn('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    productId: refColumn('product_id')
      .notNull()
      .references(() => products.id),
    productVersionId: refColumn('product_version_id')
      .notNull()
      .references(() => productVersions.id),
    orderProductId: refColumn('order_product_id').references(() => orderProducts.id),
    status: text('status').notNull().default('ACTIVE'),
    quantity: decimal('quantity').notNull(),
    attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
    ...auditColumns(),
  },
  (t) => [
    index('product_instance_subscription_idx').on(t.subscriptionId),
    index('product_instance_product_idx').on(t.productId),
    index('product_instance_version_idx').on(t.productVersionId),
    index('product_instance_order_product_idx').on(t.orderProductId),
  ],
)

/** Legacy model: a mandatory service of the offer, as subscribed. */
export const serviceInstances = pgTable(
  'service_instance',
  {
    id: idColumn(),
    code: text('code').notNull(),
    subscriptionId: refColumn('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    serviceTemplateId: refColumn('service_template_id')
      .notNull()
      .references(() => serviceTemplates.id),
    status: text('status').notNull().default('ACTIVE'),
    quantity: decimal('quantity').notNull(),
    ...auditColumns(),
  },
  (t) => [
    index('service_instance_subscription_idx').on(t.subscriptionId),
    index('service_instance_template_idx').on(t.serviceTemplateId),
  ],
)

/** The principal postpaid wallet of a user account: its wallet operations wait there to be invoiced. */
export const wallets = pgTable(
  'wallet',
  {
    id: idColumn(),
    code: text('code').notNull().default('PRINCIPAL'),
    description: text('description'),
    userAccountId: refColumn('user_account_id')
      .notNull()
      .references(() => userAccounts.id),
    walletType: text('wallet_type').notNull().default('POSTPAID'),
    principal: boolean('principal').notNull().default(true),
    /** PREPAID wallets: credits minus consumption; `reserved` is what open reservations hold (see balance_ledger). */
    balance: decimal('balance').notNull().default('0'),
    reserved: decimal('reserved').notNull().default('0'),
    /** PREPAID wallets: `wallet.balance_low` when the available amount (balance − reserved) falls below it. */
    lowBalanceLevel: decimal('low_balance_level'),
    ...auditColumns(),
  },
  (t) => [
    unique('wallet_user_account_code_uq').on(t.userAccountId, t.code),
    check('wallet_type_valid', sql`${t.walletType} in ('POSTPAID', 'PREPAID')`),
    check('wallet_reserved_not_negative', sql`${t.reserved} >= 0`),
    check('wallet_low_balance_level_not_negative', sql`${t.lowBalanceLevel} >= 0`),
  ],
)

/**
 * A charge as subscribed. One-shot subscription charges are CLOSED once rated at validation; usage charges stay
 * ACTIVE for usage rating; recurring charges are ACTIVE and rated in arrears: `charged_to_date` is the start of the
 * first period not yet rated, `next_rating_date` that period's end (the day the recurring job rates it).
 */
export const chargeInstances = pgTable(
  'charge_instance',
  {
    id: idColumn(),
    code: text('code').notNull(),
    description: text('description'),
    status: text('status').notNull().default('ACTIVE'),
    chargeId: refColumn('charge_id')
      .notNull()
      .references(() => chargeTemplates.id),
    chargeType: text('charge_type').notNull(),
    oneShotType: text('one_shot_type'),
    subscriptionId: refColumn('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    productInstanceId: refColumn('product_instance_id').references(() => productInstances.id),
    serviceInstanceId: refColumn('service_instance_id').references(() => serviceInstances.id),
    walletId: refColumn('wallet_id')
      .notNull()
      .references(() => wallets.id),
    quantity: decimal('quantity').notNull(),
    unitPriceOverride: decimal('unit_price_override'),
    subscriptionDate: day('subscription_date').notNull(),
    chargedToDate: day('charged_to_date'),
    nextRatingDate: day('next_rating_date'),
    ...auditColumns(),
  },
  (t) => [
    check('charge_instance_status_valid', sql`${t.status} in ('INACTIVE', 'ACTIVE', 'SUSPENDED', 'CLOSED')`),
    check('charge_instance_type_valid', sql`${t.chargeType} in ('RECURRING', 'USAGE', 'ONESHOT')`),
    index('charge_instance_subscription_idx').on(t.subscriptionId),
    index('charge_instance_charge_idx').on(t.chargeId),
    index('charge_instance_product_instance_idx').on(t.productInstanceId),
    index('charge_instance_service_instance_idx').on(t.serviceInstanceId),
    index('charge_instance_wallet_idx').on(t.walletId),
    // The recurring rating job reads only active recurring charges whose next period has ended.
    index('charge_instance_recurring_due_idx')
      .on(t.nextRatingDate)
      .where(sql`${t.status} = 'ACTIVE' and ${t.chargeType} = 'RECURRING'`),
  ],
)

/**
 * A discount plan as instantiated by an order, for its scope (the order, one subscription, one product instance).
 * `state` carries what later ratings need: lines discounted per subscription (applicationLimit) and the part of each
 * FIXED item already granted.
 */
export const discountPlanInstances = pgTable(
  'discount_plan_instance',
  {
    id: idColumn(),
    orderId: refColumn('order_id')
      .notNull()
      .references(() => orders.id),
    subscriptionId: refColumn('subscription_id').references(() => subscriptions.id),
    productInstanceId: refColumn('product_instance_id').references(() => productInstances.id),
    discountPlanId: refColumn('discount_plan_id')
      .notNull()
      .references(() => discountPlans.id),
    level: text('level').notNull(),
    automatic: boolean('automatic').notNull().default(false),
    position: integer('position').notNull(),
    status: text('status').notNull().default('ACTIVE'),
    state: jsonb('state').$type<Record<string, unknown>>().notNull().default({}),
    ...auditColumns(),
  },
  (t) => [
    check('discount_plan_instance_level_valid', sql`${t.level} in ('ORDER', 'OFFER', 'PRODUCT')`),
    index('discount_plan_instance_order_idx').on(t.orderId),
    index('discount_plan_instance_subscription_idx').on(t.subscriptionId),
    index('discount_plan_instance_product_instance_idx').on(t.productInstanceId),
    index('discount_plan_instance_plan_idx').on(t.discountPlanId),
  ],
)

/**
 * A rated line waiting to be invoiced: a charge's amount for a quantity (and, for recurring charges, a service
 * period), or a discount of one (negative, referencing its plan). Amounts are rounded to the currency's minor unit;
 * `amount_with_tax = amount_without_tax + amount_tax`. The unit price rated is on one side (with tax when the tenant's
 * prices include tax), the other side is derived from it at the tax rate. Huge-volume: partitioned by month of
 * `operation_date` (migration 0012; its primary key is then `(id, operation_date)`, ids still unique by their sequence).
 */
export const walletOperations = pgTable(
  'wallet_operation',
  {
    id: idColumn(),
    code: text('code').notNull(),
    description: text('description'),
    status: text('status').notNull().default('OPEN'),
    chargeType: text('charge_type').notNull(),
    operationDate: day('operation_date').notNull(),
    startDate: day('start_date'),
    endDate: day('end_date'),
    quantity: decimal('quantity').notNull(),
    unitAmountWithoutTax: decimal('unit_amount_without_tax').notNull(),
    /** The unit price with tax (12 decimals); null on operations rated before it was recorded. */
    unitAmountWithTax: decimal('unit_amount_with_tax'),
    amountWithoutTax: decimal('amount_without_tax').notNull(),
    amountTax: decimal('amount_tax').notNull(),
    amountWithTax: decimal('amount_with_tax').notNull(),
    taxPercent: numeric('tax_percent', { precision: 9, scale: 4 }).notNull(),
    taxId: refColumn('tax_id')
      .notNull()
      .references(() => taxes.id),
    accountingArticleId: refColumn('accounting_article_id')
      .notNull()
      .references(() => accountingArticles.id),
    currencyId: refColumn('currency_id')
      .notNull()
      .references(() => tradingCurrencies.id),
    walletId: refColumn('wallet_id')
      .notNull()
      .references(() => wallets.id),
    chargeInstanceId: refColumn('charge_instance_id')
      .notNull()
      .references(() => chargeInstances.id),
    subscriptionId: refColumn('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    billingAccountId: refColumn('billing_account_id')
      .notNull()
      .references(() => billingAccounts.id),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
    orderId: refColumn('order_id').references(() => orders.id),
    pricingVersionId: refColumn('pricing_version_id').references(() => pricingVersions.id),
    discountPlanId: refColumn('discount_plan_id').references(() => discountPlans.id),
    discountPlanItemId: refColumn('discount_plan_item_id').references(() => discountPlanItems.id),
    discountPlanInstanceId: refColumn('discount_plan_instance_id').references(() => discountPlanInstances.id),
    /** Discount operations: the operation they discount (a soft link: no constraint on this huge table). */
    discountedWalletOperationId: refColumn('discounted_wallet_operation_id'),
    explanation: text('explanation'),
    /** BILLED: the bill run and invoice line that billed it (soft links: no constraint on this huge table). */
    billingRunId: refColumn('billing_run_id'),
    invoiceLineId: refColumn('invoice_line_id'),
    created: instant('created').notNull().defaultNow(),
    creator: text('creator'),
  },
  (t) => [
    check(
      'wallet_operation_status_valid',
      sql`${t.status} in ('OPEN', 'BILLED', 'TREATED', 'CANCELED', 'RERATED', 'TO_RERATE')`,
    ),
    index('wallet_operation_billing_account_status_idx').on(t.billingAccountId, t.status),
    index('wallet_operation_charge_instance_idx').on(t.chargeInstanceId),
    index('wallet_operation_subscription_idx').on(t.subscriptionId),
    index('wallet_operation_discount_plan_idx').on(t.discountPlanId),
    index('wallet_operation_order_idx').on(t.orderId),
    index('wallet_operation_operation_date_idx').on(t.operationDate),
  ],
)
