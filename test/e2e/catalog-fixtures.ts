import { expect } from 'vitest'
import type { TestApp } from '../support/test-app.ts'

/** Reference data the catalog needs: currencies, a tax class, invoice sub-categories, a calendar, units. */
export async function seedReferenceData(t: TestApp): Promise<void> {
  const creates: [string, Record<string, unknown>][] = [
    ['tradingCurrencies', { code: 'EUR', symbol: '€' }],
    ['tradingCurrencies', { code: 'USD', symbol: '$' }],
    ['taxClasses', { code: 'NORMAL', description: 'Normal rate' }],
    ['taxClasses', { code: 'REDUCED', description: 'Reduced rate' }],
    ['invoiceCategories', { code: 'CAT', description: 'Category' }],
    ['invoiceSubCategories', { code: 'SUB_REC', invoiceCategory: 'CAT' }],
    ['invoiceSubCategories', { code: 'SUB_USAGE', invoiceCategory: 'CAT' }],
    ['invoiceSubCategories', { code: 'SUB_ONE', invoiceCategory: 'CAT' }],
    ['calendars', { code: 'MONTHLY', calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1 }],
    ['unitsOfMeasure', { code: 'MB', description: 'Megabyte' }],
    ['unitsOfMeasure', { code: 'GB', description: 'Gigabyte' }],
    ['accountingArticles', { code: 'ART_DISCOUNT', invoiceSubCategory: 'SUB_ONE', taxClass: 'NORMAL' }],
  ]
  for (const [path, body] of creates) {
    const response = await t.request('POST', `/api/v1/${path}`, body)
    expect(response.status, `${path} ${JSON.stringify(response.body)}`).toBe(201)
  }
}

export async function created(t: TestApp, method: string, url: string, body?: unknown, status = 201): Promise<any> {
  const response = await t.request(method, url, body)
  expect(response.status, `${method} ${url} ${JSON.stringify(response.body)}`).toBe(status)
  return response.body
}

export const attribute = (code: string, allowedValues: string[], attributeType = 'LIST_TEXT') => ({
  code,
  description: `${code} attribute`,
  attributeType,
  allowedValues,
})

export const charge = (code: string, type: string, extra: Record<string, unknown> = {}) => ({
  code,
  description: `${code} charge`,
  type,
  invoiceSubCategory: type === 'USAGE' ? 'SUB_USAGE' : type === 'RECURRING' ? 'SUB_REC' : 'SUB_ONE',
  taxClass: 'NORMAL',
  ...(type === 'RECURRING' ? { billingCalendar: 'MONTHLY' } : {}),
  ...extra,
})
