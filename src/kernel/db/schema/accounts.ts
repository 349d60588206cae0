import { index, text } from 'drizzle-orm/pg-core'
import { pgTable } from 'drizzle-orm/pg-core'
import { cfValuesColumn, codedColumns, lowerCodeIndex, refColumn } from './columns.ts'
import { billingCycles, countries, languages, titles, tradingCurrencies } from './reference.ts'

/**
 * A postal address as invoices print it: two lines, zip code and city; the country is the record's own `country`
 * (a seller's, a billing account's), the one its taxes are mapped by.
 */
const addressColumns = () => ({
  address1: text('address_1'),
  address2: text('address_2'),
  zipCode: text('zip_code'),
  city: text('city'),
})

export const sellers = pgTable('seller', {
  ...codedColumns(),
  tradingCurrencyId: refColumn('trading_currency_id').references(() => tradingCurrencies.id),
  countryId: refColumn('country_id').references(() => countries.id),
  languageId: refColumn('language_id').references(() => languages.id),
  parentSellerId: refColumn('parent_seller_id'),
  ...addressColumns(),
  /** The seller's VAT identification number, printed on its invoices. */
  vatNo: text('vat_no'),
  cfValues: cfValuesColumn(),
})

export const customers = pgTable(
  'customer',
  {
    ...codedColumns(),
    name: text('name'),
    email: text('email'),
    sellerId: refColumn('seller_id')
      .notNull()
      .references(() => sellers.id),
    titleId: refColumn('title_id').references(() => titles.id),
    status: text('status').notNull().default('ACTIVE'),
    /** The customer's VAT identification number (the legal entity's), printed on its invoices. */
    vatNo: text('vat_no'),
    cfValues: cfValuesColumn(),
  },
  (t) => [
    index('customer_seller_id_idx').on(t.sellerId),
    // A title in use cannot be deleted: the check reads customers by title.
    index('customer_title_id_idx').on(t.titleId),
    lowerCodeIndex('customer', t.code),
  ],
)

export const customerAccounts = pgTable(
  'customer_account',
  {
    ...codedColumns(),
    name: text('name'),
    customerId: refColumn('customer_id')
      .notNull()
      .references(() => customers.id),
    tradingCurrencyId: refColumn('trading_currency_id').references(() => tradingCurrencies.id),
    languageId: refColumn('language_id').references(() => languages.id),
    status: text('status').notNull().default('ACTIVE'),
    cfValues: cfValuesColumn(),
  },
  (t) => [
    index('customer_account_customer_id_idx').on(t.customerId),
    index('customer_account_trading_currency_id_idx').on(t.tradingCurrencyId),
    index('customer_account_language_id_idx').on(t.languageId),
    lowerCodeIndex('customer_account', t.code),
  ],
)

export const billingAccounts = pgTable(
  'billing_account',
  {
    ...codedColumns(),
    name: text('name'),
    email: text('email'),
    customerAccountId: refColumn('customer_account_id')
      .notNull()
      .references(() => customerAccounts.id),
    billingCycleId: refColumn('billing_cycle_id')
      .notNull()
      .references(() => billingCycles.id),
    countryId: refColumn('country_id')
      .notNull()
      .references(() => countries.id),
    languageId: refColumn('language_id')
      .notNull()
      .references(() => languages.id),
    tradingCurrencyId: refColumn('trading_currency_id')
      .notNull()
      .references(() => tradingCurrencies.id),
    status: text('status').notNull().default('ACTIVE'),
    /** Where its invoices are addressed (the country is `country`). */
    ...addressColumns(),
    cfValues: cfValuesColumn(),
  },
  (t) => [
    index('billing_account_customer_account_id_idx').on(t.customerAccountId),
    index('billing_account_billing_cycle_id_idx').on(t.billingCycleId),
    // Filters through reference data (`country.code`) join on these: indexed, a filter reads only its rows.
    index('billing_account_country_id_idx').on(t.countryId),
    index('billing_account_language_id_idx').on(t.languageId),
    index('billing_account_trading_currency_id_idx').on(t.tradingCurrencyId),
    lowerCodeIndex('billing_account', t.code),
  ],
)

export const userAccounts = pgTable(
  'user_account',
  {
    ...codedColumns(),
    name: text('name'),
    billingAccountId: refColumn('billing_account_id')
      .notNull()
      .references(() => billingAccounts.id),
    status: text('status').notNull().default('ACTIVE'),
    cfValues: cfValuesColumn(),
  },
  (t) => [index('user_account_billing_account_id_idx').on(t.billingAccountId), lowerCodeIndex('user_account', t.code)],
)
