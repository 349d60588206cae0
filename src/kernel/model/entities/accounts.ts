import * as t from '../../db/schema/index.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

const ACCOUNT_STATUS = ['ACTIVE', 'CLOSED', 'TERMINATED'] as const

export const accountEntities = [
  defineEntity({
    name: 'Seller',
    package: 'admin',
    table: t.sellers,
    resource: 'accounts.customers',
    business: true,
    customFields: true,
    sellerPath: '',
    relations: {
      tradingCurrency: manyToOne('TradingCurrency', 'tradingCurrencyId'),
      country: manyToOne('Country', 'countryId'),
      language: manyToOne('Language', 'languageId'),
      parentSeller: manyToOne('Seller', 'parentSellerId'),
      customers: oneToMany('Customer', 'seller'),
    },
  }),
  defineEntity({
    name: 'Customer',
    package: 'crm',
    table: t.customers,
    resource: 'accounts.customers',
    business: true,
    customFields: true,
    sellerPath: 'seller',
    fields: { status: { enum: ACCOUNT_STATUS } },
    relations: {
      seller: manyToOne('Seller', 'sellerId'),
      title: manyToOne('Title', 'titleId'),
      customerAccounts: oneToMany('CustomerAccount', 'customer'),
    },
  }),
  defineEntity({
    name: 'CustomerAccount',
    package: 'payments',
    table: t.customerAccounts,
    resource: 'accounts.customerAccounts',
    business: true,
    customFields: true,
    sellerPath: 'customer.seller',
    fields: { status: { enum: ACCOUNT_STATUS } },
    relations: {
      customer: manyToOne('Customer', 'customerId'),
      tradingCurrency: manyToOne('TradingCurrency', 'tradingCurrencyId'),
      language: manyToOne('Language', 'languageId'),
      billingAccounts: oneToMany('BillingAccount', 'customerAccount'),
    },
  }),
  defineEntity({
    name: 'BillingAccount',
    package: 'billing',
    table: t.billingAccounts,
    resource: 'accounts.billingAccounts',
    business: true,
    customFields: true,
    sellerPath: 'customerAccount.customer.seller',
    fields: { status: { enum: ACCOUNT_STATUS } },
    relations: {
      customerAccount: manyToOne('CustomerAccount', 'customerAccountId'),
      billingCycle: manyToOne('BillingCycle', 'billingCycleId'),
      country: manyToOne('Country', 'countryId'),
      language: manyToOne('Language', 'languageId'),
      tradingCurrency: manyToOne('TradingCurrency', 'tradingCurrencyId'),
      userAccounts: oneToMany('UserAccount', 'billingAccount'),
    },
  }),
  defineEntity({
    name: 'UserAccount',
    package: 'billing',
    table: t.userAccounts,
    resource: 'accounts.userAccounts',
    business: true,
    customFields: true,
    sellerPath: 'billingAccount.customerAccount.customer.seller',
    fields: { status: { enum: ACCOUNT_STATUS } },
    relations: { billingAccount: manyToOne('BillingAccount', 'billingAccountId') },
  }),
]
