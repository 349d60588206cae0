import { Money } from '../../kernel/money.ts'
import type { ErrorDetail } from '../../kernel/errors.ts'
import { registry } from '../../kernel/model/index.ts'
import type { ResourceSpec } from '../../kernel/resources/resource.model.ts'
import { validateCalendar } from './calendar.model.ts'

const SETTINGS = 'api.settings'

function percentRule(record: Record<string, unknown>): ErrorDetail[] {
  const value = record.percent
  if (value === undefined || value === null) return []
  const p = new Money(value as string | number)
  return p.isNegative() || p.greaterThan(100)
    ? [{ field: 'percent', message: 'expected a percentage between 0 and 100' }]
    : []
}

function customFieldTemplateRule(record: Record<string, unknown>): ErrorDetail[] {
  const problems: ErrorDetail[] = []
  const appliesTo = record.appliesTo as string | undefined
  const entity = appliesTo === undefined ? undefined : registry.find(appliesTo)
  if (appliesTo !== undefined && !entity?.customFields) {
    const names = registry.entities.filter((e) => e.customFields).map((e) => e.name)
    problems.push({ field: 'appliesTo', message: `expected an entity that carries custom fields: ${names.join(', ')}` })
  }
  if (record.fieldType === 'ENTITY' || record.fieldType === 'CHILD_ENTITY') {
    const clazz = record.entityClazz as string | null | undefined
    if (!clazz || !registry.find(clazz))
      problems.push({ field: 'entityClazz', message: 'expected the name of a known entity' })
  }
  return problems
}

/** Reference data (api.settings.*) and the account hierarchy (accounts.*), served by the generic resource. */
export const accountResources: ResourceSpec[] = [
  {
    entity: 'TradingCurrency',
    path: 'tradingCurrencies',
    roleResource: SETTINGS,
    label: 'trading currency',
    fieldSchemas: { decimalPlaces: { minimum: 0, maximum: 6 } },
  },
  { entity: 'Country', path: 'countries', roleResource: SETTINGS, label: 'country' },
  { entity: 'Language', path: 'languages', roleResource: SETTINGS, label: 'language' },
  { entity: 'Title', path: 'titles', roleResource: SETTINGS, label: 'title' },
  { entity: 'Tax', path: 'taxes', roleResource: SETTINGS, label: 'tax', validate: percentRule },
  { entity: 'TaxClass', path: 'taxClasses', roleResource: SETTINGS, label: 'tax class' },
  { entity: 'TaxMapping', path: 'taxMappings', roleResource: SETTINGS, label: 'tax mapping' },
  { entity: 'InvoiceCategory', path: 'invoiceCategories', roleResource: SETTINGS, label: 'invoice category' },
  { entity: 'InvoiceSubCategory', path: 'invoiceSubCategories', roleResource: SETTINGS, label: 'invoice sub-category' },
  { entity: 'AccountingArticle', path: 'accountingArticles', roleResource: SETTINGS, label: 'accounting article' },
  {
    entity: 'Calendar',
    path: 'calendars',
    roleResource: SETTINGS,
    label: 'calendar',
    validate: validateCalendar,
    fieldSchemas: { periodLength: { minimum: 1, maximum: 3660 } },
  },
  {
    entity: 'BillingCycle',
    path: 'billingCycles',
    roleResource: SETTINGS,
    label: 'billing cycle',
    fieldSchemas: {
      invoiceDateDelay: { minimum: -365, maximum: 365 },
      lastTransactionDateDelay: { minimum: -365, maximum: 365 },
    },
  },
  { entity: 'UnitOfMeasure', path: 'unitsOfMeasure', roleResource: SETTINGS, label: 'unit of measure' },
  {
    entity: 'CustomFieldTemplate',
    path: 'customFieldTemplates',
    roleResource: SETTINGS,
    label: 'custom field template',
    validate: customFieldTemplateRule,
    normalize: (body) => {
      const entity = typeof body.appliesTo === 'string' ? registry.find(body.appliesTo) : undefined
      if (entity) body.appliesTo = entity.name
    },
  },
  { entity: 'Seller', path: 'sellers', roleResource: 'accounts.customers', label: 'seller' },
  { entity: 'Customer', path: 'customers', roleResource: 'accounts.customers', label: 'customer' },
  {
    entity: 'CustomerAccount',
    path: 'customerAccounts',
    roleResource: 'accounts.customerAccounts',
    label: 'customer account',
  },
  {
    entity: 'BillingAccount',
    path: 'billingAccounts',
    roleResource: 'accounts.billingAccounts',
    label: 'billing account',
  },
  { entity: 'UserAccount', path: 'userAccounts', roleResource: 'accounts.userAccounts', label: 'user account' },
]
