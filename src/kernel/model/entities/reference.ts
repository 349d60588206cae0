import * as t from '../../db/schema/index.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

const settings = 'api.settings'

export const referenceEntities = [
  defineEntity({ name: 'TradingCurrency', package: 'billing', table: t.tradingCurrencies, resource: settings }),
  defineEntity({
    name: 'Country',
    package: 'billing',
    table: t.countries,
    resource: settings,
    relations: { currency: manyToOne('TradingCurrency', 'currencyId') },
  }),
  defineEntity({ name: 'Language', package: 'billing', table: t.languages, resource: settings }),
  defineEntity({ name: 'Title', package: 'shared', table: t.titles, resource: settings }),
  defineEntity({ name: 'Tax', package: 'billing', table: t.taxes, resource: settings }),
  defineEntity({ name: 'TaxClass', package: 'tax', table: t.taxClasses, resource: settings }),
  defineEntity({
    name: 'TaxMapping',
    package: 'tax',
    table: t.taxMappings,
    resource: settings,
    relations: {
      taxClass: manyToOne('TaxClass', 'taxClassId'),
      sellerCountry: manyToOne('Country', 'sellerCountryId'),
      billingCountry: manyToOne('Country', 'billingCountryId'),
      tax: manyToOne('Tax', 'taxId'),
    },
  }),
  defineEntity({
    name: 'InvoiceCategory',
    package: 'catalog',
    table: t.invoiceCategories,
    resource: settings,
    relations: { invoiceSubCategories: oneToMany('InvoiceSubCategory', 'invoiceCategory') },
  }),
  defineEntity({
    name: 'InvoiceSubCategory',
    package: 'catalog',
    table: t.invoiceSubCategories,
    resource: settings,
    relations: { invoiceCategory: manyToOne('InvoiceCategory', 'invoiceCategoryId') },
  }),
  defineEntity({
    name: 'AccountingArticle',
    package: 'article',
    table: t.accountingArticles,
    resource: settings,
    relations: {
      invoiceSubCategory: manyToOne('InvoiceSubCategory', 'invoiceSubCategoryId'),
      taxClass: manyToOne('TaxClass', 'taxClassId'),
    },
  }),
  defineEntity({
    name: 'Calendar',
    package: 'catalog',
    table: t.calendars,
    resource: settings,
    fields: {
      calendarType: { enum: ['PERIOD', 'YEARLY'] },
      periodUnit: { enum: ['DAY', 'MONTH'] },
    },
    inheritance: { discriminator: 'calendarType', subclasses: { CalendarPeriod: 'PERIOD', CalendarYearly: 'YEARLY' } },
  }),
  defineEntity({
    name: 'BillingCycle',
    package: 'billing',
    table: t.billingCycles,
    resource: settings,
    fields: { dateAggregation: { enum: ['NONE', 'DAY', 'WEEK', 'MONTH'] } },
    relations: { calendar: manyToOne('Calendar', 'calendarId') },
  }),
  defineEntity({
    name: 'UnitOfMeasure',
    package: 'catalog',
    table: t.unitsOfMeasure,
    resource: settings,
    relations: { parentUnit: manyToOne('UnitOfMeasure', 'parentUnitId') },
  }),
  defineEntity({
    name: 'CustomFieldTemplate',
    package: 'crm.custom',
    table: t.customFieldTemplates,
    resource: settings,
    fields: {
      fieldType: {
        enum: [
          'STRING',
          'TEXT_AREA',
          'LONG',
          'DOUBLE',
          'DATE',
          'BOOLEAN',
          'LIST',
          'ENTITY',
          'CHILD_ENTITY',
          'MULTI_VALUE',
        ],
      },
      storageType: { enum: ['SINGLE', 'LIST', 'MAP', 'MATRIX'] },
    },
  }),
  defineEntity({ name: 'TenantSetting', platform: true, package: 'crm', table: t.tenantSettings, resource: settings }),
]
