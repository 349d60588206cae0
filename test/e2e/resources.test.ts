import { describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { useTestApp } from '../support/test-app.ts'
import { rows } from '../../src/kernel/db/database.ts'

const t = useTestApp()

/**
 * Every reference and account resource in dependency order: a valid create body, a partial update, and a
 * bad field that must be rejected with 400 naming it (and change nothing).
 */
const CASES: {
  path: string
  create: Record<string, unknown>
  update: Record<string, unknown>
  bad: [string, unknown]
}[] = [
  {
    path: 'tradingCurrencies',
    create: { code: 'EUR', description: 'Euro', symbol: '€' },
    update: { decimalPlaces: 3 },
    bad: ['decimalPlaces', 'two'],
  },
  {
    path: 'countries',
    create: { code: 'FR', description: 'France', currency: 'EUR' },
    update: { description: 'République française' },
    bad: ['currency', 'XXX'],
  },
  {
    path: 'languages',
    create: { code: 'FRA', description: 'French' },
    update: { description: 'Français' },
    bad: ['description', 12],
  },
  {
    path: 'titles',
    create: { code: 'MRS', description: 'Mrs' },
    update: { isCompany: true },
    bad: ['isCompany', 'yes'],
  },
  {
    path: 'taxes',
    create: { code: 'TAX_20', description: 'Standard', percent: 20 },
    update: { percent: '19.6' },
    bad: ['percent', 150],
  },
  {
    path: 'taxClasses',
    create: { code: 'NORMAL', description: 'Normal' },
    update: { description: 'Normal rate' },
    bad: ['colour', 'red'],
  },
  {
    path: 'taxMappings',
    create: { code: 'TM_NORMAL', taxClass: 'NORMAL', tax: 'TAX_20' },
    update: { billingCountry: 'FR' },
    bad: ['tax', 'NOPE'],
  },
  {
    path: 'invoiceCategories',
    create: { code: 'SUBS', description: 'Subscriptions' },
    update: { sortIndex: 2 },
    bad: ['sortIndex', 1.5],
  },
  {
    path: 'invoiceSubCategories',
    create: { code: 'SUBS_REC', invoiceCategory: 'SUBS' },
    update: { description: 'Recurring' },
    bad: ['invoiceCategory', 'NONE'],
  },
  {
    path: 'accountingArticles',
    create: { code: 'ART_REC', invoiceSubCategory: 'SUBS_REC', taxClass: 'NORMAL' },
    update: { accountingCode: '706' },
    bad: ['taxClass', 'NONE'],
  },
  {
    path: 'calendars',
    create: { code: 'MONTHLY', calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1 },
    update: { description: 'Monthly' },
    bad: ['calendarType', 'HOURLY'],
  },
  {
    path: 'billingCycles',
    create: { code: 'CYC_M', calendar: 'MONTHLY', invoiceDateDelay: 2 },
    update: { invoiceDateDelay: 5 },
    bad: ['calendar', 'NONE'],
  },
  {
    path: 'unitsOfMeasure',
    create: { code: 'MB', description: 'Megabyte', symbol: 'MB' },
    update: { multiplicator: 1.5 },
    bad: ['multiplicator', 'lots'],
  },
  {
    path: 'customFieldTemplates',
    create: { code: 'CF_SEG', appliesTo: 'Customer', fieldType: 'STRING' },
    update: { valueRequired: true },
    bad: ['appliesTo', 'Tax'],
  },
  {
    path: 'sellers',
    create: { code: 'MAIN', description: 'Main seller', tradingCurrency: 'EUR', country: 'FR', language: 'FRA' },
    update: {
      description: 'The seller',
      address1: '12 rue de la Monnaie',
      address2: null,
      zipCode: '75001',
      city: 'Paris',
      vatNo: 'FR40123456789',
    },
    bad: ['country', 'ZZ'],
  },
  {
    path: 'customers',
    create: { code: 'CUST_1', seller: 'MAIN', name: 'Ada', title: 'MRS', cfValues: { CF_SEG: [{ value: 'SMB' }] } },
    update: { email: 'ada@example.com', vatNo: 'FR12345678901' },
    bad: ['seller', 'NOPE'],
  },
  {
    path: 'customerAccounts',
    create: { code: 'CA_1', customer: 'CUST_1' },
    update: { tradingCurrency: 'EUR' },
    bad: ['customer', 'NOPE'],
  },
  {
    path: 'billingAccounts',
    create: {
      code: 'BA_1',
      customerAccount: 'CA_1',
      billingCycle: 'CYC_M',
      country: 'FR',
      language: 'FRA',
      tradingCurrency: 'EUR',
      address1: 'Friedrichstraße 7',
      zipCode: '10117',
      city: 'Berlin',
    },
    update: { email: 'billing@example.com', address2: 'Aufgang B' },
    bad: ['billingCycle', 'NOPE'],
  },
  {
    path: 'userAccounts',
    create: { code: 'UA_1', billingAccount: 'BA_1' },
    update: { status: 'CLOSED' },
    bad: ['status', 'SLEEPING'],
  },
]

describe('plain v1 resources', () => {
  it.each(CASES)(
    '$path round-trips create, get, list, update and rejects bad input',
    async ({ path, create, update, bad }) => {
      const created = await t.request('POST', `/api/v1/${path}`, create)
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      expect(created.body.code).toBe(create.code)
      expect(created.body.id).toEqual(expect.any(Number))
      expect(created.body.auditable.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

      const fetched = await t.request('GET', `/api/v1/${path}/${String(create.code)}`)
      expect(fetched.status).toBe(200)
      expect(fetched.body).toEqual(created.body)

      const listed = await t.request('GET', `/api/v1/${path}?limit=10`)
      expect(listed.status).toBe(200)
      expect(listed.body).toMatchObject({ total: 1, offset: 0, limit: 10 })
      expect(listed.body.data[0].code).toBe(create.code)

      const updated = await t.request('PUT', `/api/v1/${path}/${String(create.code)}`, update)
      expect(updated.status, JSON.stringify(updated.body)).toBe(200)
      for (const [key, value] of Object.entries(update))
        expect(updated.body[key]).toEqual(typeof value === 'string' && key === 'percent' ? Number(value) : value)
      expect(updated.body.auditable.updated).not.toBeNull()

      const duplicate = await t.request('POST', `/api/v1/${path}`, create)
      expect(duplicate.status).toBe(409)
      expect(duplicate.body).toMatchObject({ status: 'FAIL', errorCode: 'ENTITY_ALREADY_EXISTS' })

      const [field, value] = bad
      const rejected = await t.request('POST', `/api/v1/${path}`, { ...create, code: 'OTHER', [field]: value })
      expect(rejected.status).toBe(400)
      expect(rejected.body.errorCode).toBe('VALIDATION_FAILED')
      expect(rejected.body.details.map((d: { field: string }) => d.field)).toContain(field)
      const badUpdate = await t.request('PUT', `/api/v1/${path}/${String(create.code)}`, { [field]: value })
      expect(badUpdate.status).toBe(400)
      const after = await t.request('GET', `/api/v1/${path}/${String(create.code)}`)
      expect(after.body).toEqual(updated.body)
      const other = await t.request('GET', `/api/v1/${path}/OTHER`)
      expect(other.status).toBe(404)
    },
  )

  it('gives a customer its title by code, as the other references', async () => {
    const customer = await t.request('GET', '/api/v1/customers/CUST_1')
    expect(customer.body.title).toBe('MRS')
    const unknown = await t.request('PUT', '/api/v1/customers/CUST_1', { title: 'SIR' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.details).toEqual([expect.objectContaining({ field: 'title' })])
    const title = await t.request('GET', '/api/v1/titles/MRS')
    expect(title.body).toMatchObject({ code: 'MRS', description: 'Mrs', isCompany: true })
    // Readable as any registry entity: the Query API and Opencell's generic API.
    const queried = await t.request('GET', '/api/v1/query/customer?fields=code,title.code,title.isCompany')
    expect(queried.body.data).toEqual([
      expect.objectContaining({ code: 'CUST_1', title: { code: 'MRS', isCompany: true } }),
    ])
    const generic = await t.request('POST', '/opencell/api/rest/v2/generic/all/title', { genericFields: ['code'] })
    expect(generic.body.data).toEqual([expect.objectContaining({ code: 'MRS' })])
  })

  it('refuses to delete a record others reference, then deletes bottom-up', async () => {
    const inUse = await t.request('DELETE', '/api/v1/sellers/MAIN')
    expect(inUse.status).toBe(409)
    expect(inUse.body).toMatchObject({
      errorCode: 'ENTITY_IN_USE',
      message: 'seller MAIN is still referenced by a customer',
    })
    const titleInUse = await t.request('DELETE', '/api/v1/titles/MRS')
    expect(titleInUse.status).toBe(409)
    expect(titleInUse.body.message).toBe('title MRS is still referenced by a customer')
    for (const { path, create } of [...CASES].reverse()) {
      const deleted = await t.request('DELETE', `/api/v1/${path}/${String(create.code)}`)
      expect(deleted.status, path).toBe(204)
      expect((await t.request('GET', `/api/v1/${path}/${String(create.code)}`)).status).toBe(404)
    }
    expect((await t.request('DELETE', '/api/v1/sellers/MAIN')).status).toBe(404)
  })

  it('names every missing required field', async () => {
    const response = await t.request('POST', '/api/v1/billingAccounts', { code: 'BA_X' })
    expect(response.status).toBe(400)
    expect(response.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'billingCycle',
      'country',
      'customerAccount',
      'language',
      'tradingCurrency',
    ])
  })

  it('clears an optional field with null and refuses null on a required one', async () => {
    await t.request('POST', '/api/v1/tradingCurrencies', { code: 'USD', symbol: '$' })
    const cleared = await t.request('PUT', '/api/v1/tradingCurrencies/USD', { symbol: null })
    expect(cleared.body.symbol).toBeNull()
    const refused = await t.request('PUT', '/api/v1/tradingCurrencies/USD', { decimalPlaces: null })
    expect(refused.status).toBe(400)
    expect(refused.body.details[0].field).toBe('decimalPlaces')
  })

  it('checks custom field values against their templates', async () => {
    await t.request('POST', '/api/v1/customFieldTemplates', { code: 'CF_SIZE', appliesTo: 'seller', fieldType: 'LONG' })
    const template = await t.request('GET', '/api/v1/customFieldTemplates/CF_SIZE')
    expect(template.body.appliesTo).toBe('Seller')
    const wrongType = await t.request('POST', '/api/v1/sellers', {
      code: 'S2',
      cfValues: { CF_SIZE: [{ value: 'big' }] },
    })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body.details[0].field).toBe('cfValues.CF_SIZE[0].value')
    const unknown = await t.request('POST', '/api/v1/sellers', { code: 'S2', cfValues: { CF_NOPE: [{ value: 1 }] } })
    expect(unknown.status).toBe(400)
    const ok = await t.request('POST', '/api/v1/sellers', { code: 'S2', cfValues: { CF_SIZE: [{ value: 12 }] } })
    expect(ok.status).toBe(201)
    expect(ok.body.cfValues).toEqual({ CF_SIZE: [{ value: 12 }] })
  })

  it('validates calendar shapes by type', async () => {
    const missing = await t.request('POST', '/api/v1/calendars', { code: 'P', calendarType: 'PERIOD' })
    expect(missing.status).toBe(400)
    expect(missing.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['periodLength', 'periodUnit'])
    const yearly = await t.request('POST', '/api/v1/calendars', {
      code: 'Y',
      calendarType: 'YEARLY',
      days: ['01-01', '13-01'],
    })
    expect(yearly.status).toBe(400)
    expect(yearly.body.details[0].field).toBe('days[1]')
  })

  it('paginates with sort and rejects unknown sort fields and orders', async () => {
    for (const code of ['L3', 'L1', 'L2']) await t.request('POST', '/api/v1/languages', { code })
    const page = await t.request('GET', '/api/v1/languages?sortBy=code&sortOrder=desc&limit=2&offset=1')
    expect(page.body.data.map((l: { code: string }) => l.code)).toEqual(['L2', 'L1'])
    expect((await t.request('GET', '/api/v1/languages?sortBy=secret')).status).toBe(400)
    const order = await t.request('GET', '/api/v1/languages?sortOrder=UP')
    expect(order.status).toBe(400)
    expect(order.body.details).toEqual([
      { field: 'sortOrder', message: 'query parameter expected one of ASC, DESC, ASCENDING, DESCENDING (in any case)' },
    ])
    // The four words in any case, as the schema's pattern says.
    for (const sortOrder of ['ASC', 'descending', 'Desc', 'ASCENDING']) {
      expect((await t.request('GET', `/api/v1/languages?sortOrder=${sortOrder}`)).status).toBe(200)
    }
    const capped = await t.request('GET', '/api/v1/languages?limit=5000')
    expect(capped.body.limit).toBe(1000)
  })

  it('reads and partially updates tenant settings', async () => {
    const before = await t.request('GET', '/api/v1/tenantSettings')
    expect(before.body).toMatchObject({
      timeZone: 'UTC',
      defaultListLimit: 100,
      prepaidReservationExpirationDelayinMillisec: 300000,
    })
    expect(before.body.workbench.governor).toMatchObject({
      maxRowsSync: 1000,
      maxRowsAsync: 1000000,
      maxQueriesPerMinutePerUser: 30,
    })
    const bad = await t.request('PUT', '/api/v1/tenantSettings', {
      timeZone: 'Mars/Olympus',
      hugeVolumeEntities: ['nothing'],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['timeZone', 'hugeVolumeEntities[0]'])
    const updated = await t.request('PUT', '/api/v1/tenantSettings', {
      timeZone: 'Europe/Paris',
      hugeVolumeEntities: ['billingaccount'],
      workbench: { governor: { maxRowsSync: 500 } },
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      timeZone: 'Europe/Paris',
      hugeVolumeEntities: ['BillingAccount'],
      defaultListLimit: 100,
    })
    expect(updated.body.workbench.governor.maxRowsSync).toBe(500)
  })

  it('keeps a concurrent duplicate create to one row', async () => {
    const results = await Promise.all([1, 2, 3].map(() => t.request('POST', '/api/v1/taxClasses', { code: 'RACE' })))
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409])
    const count = await rows<{ n: number }>(
      t.db.current.db,
      sql`select count(*)::int as n from tax_class where code = 'RACE'`,
    )
    expect(count[0]!.n).toBe(1)
  })
})
