import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, type Response } from '../support/test-app.ts'
import { created } from '../e2e/catalog-fixtures.ts'
import { orderOf, place, seedOrderCatalog } from '../e2e/order-fixtures.ts'

/**
 * Sellers on the catalog (issue 36, finding 5), replayed on both offer interfaces: a client restricted to seller MAIN
 * changes only offers MAIN sells, within MAIN. It cannot remove SELLER_B from a two-seller offer, create an offer
 * sold by SELLER_B, or tell a hidden seller code from an unknown one; deleting an offer in use tells it no count of
 * other sellers' subscriptions. An offer reservation on another seller's user account answers as on an unknown one
 * (finding 10).
 */
const t = useTestApp()
const OFFERS = '/v1/catalog/offers'
const V1 = '/api/v1/offerTemplates'
let main = ''
let mainWallets = ''

const account = { billingCycle: 'CYC_M', language: 'ENG', country: 'FR', tradingCurrency: 'EUR' }
/** An order of OF_code for SELLER_B's user account UA_B. */
const orderOfB = (offer: string, subscriptionCode: string) =>
  orderOf([{ subscriptionCode, offerTemplateCode: offer, orderProducts: [{ productCode: 'PR_LICENSE' }] }], {
    sellerCode: 'SELLER_B',
    billingAccountCode: 'BA_B',
    userAccountCode: 'UA_B',
  })

beforeAll(async () => {
  await seedOrderCatalog(t)
  const post = (path: string, body: unknown) => created(t, 'POST', `/api/v1/${path}`, body)
  await post('sellers', { code: 'SELLER_B', tradingCurrency: 'EUR', country: 'FR', language: 'ENG' })
  await post('customers', { code: 'C_B', seller: 'SELLER_B', name: 'Blaise' })
  await post('customerAccounts', { code: 'CA_B', customer: 'C_B' })
  await post('billingAccounts', { code: 'BA_B', customerAccount: 'CA_B', ...account })
  await post('userAccounts', { code: 'UA_B', billingAccount: 'BA_B' })
  const offer = (code: string, sellers: string[]) =>
    post('offerTemplates', {
      code,
      name: code,
      lifeCycleStatus: 'ACTIVE',
      offerComponents: [{ productCode: 'PR_LICENSE' }],
      sellers,
    })
  await offer('OF_INTERNET', ['MAIN', 'SELLER_B'])
  await offer('OF_MAIN', ['MAIN'])
  await offer('OF_B', ['SELLER_B'])
  await offer('OF_EVERYONE', [])
  main = await t.tokenWithRoles(['catalog.offers.view', 'catalog.offers.manage'], { sellerCodes: ['MAIN'] })
  mainWallets = await t.tokenWithRoles(['billing.wallets.manage'], { sellerCodes: ['MAIN'] })
})

const asMain = (method: string, url: string, body?: unknown) => t.requestAs(main, method, url, body)
const sellersOf = async (code: string) => (await t.request('GET', `${OFFERS}/${code}`)).body.seller_codes as string[]

/** An answer with `code` written as `<code>`: two refusals differing only by the code they name compare equal. */
const shape = (response: Pick<Response, 'status' | 'body'>, code: string) => ({
  status: response.status,
  body: JSON.parse(JSON.stringify(response.body).replaceAll(code, '<code>')) as unknown,
})

describe('a MAIN-only client on a two-seller offer', () => {
  it('sets its own sellers on the second interface and SELLER_B stays, its orders still priced', async () => {
    const answer = await asMain('PUT', `${OFFERS}/OF_INTERNET`, { seller_codes: ['MAIN'], name: 'Fibre' })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body).toMatchObject({ name: 'Fibre', seller_codes: ['MAIN', 'SELLER_B'] })
    expect(await sellersOf('OF_INTERNET')).toEqual(['MAIN', 'SELLER_B'])
    const preview = await t.request('POST', '/api/v1/orders/preview', orderOfB('OF_INTERNET', 'SUB_B_PREVIEW'))
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
  })

  it('sets its own sellers on the v1 interface and SELLER_B stays', async () => {
    const answer = await asMain('PUT', `${V1}/OF_INTERNET`, { sellers: ['MAIN'] })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.sellers).toEqual(['MAIN', 'SELLER_B'])
  })

  it('sends back the seller list it read (SELLER_B is kept, not added)', async () => {
    const read = await asMain('GET', `${OFFERS}/OF_INTERNET`)
    const answer = await asMain('PUT', `${OFFERS}/OF_INTERNET`, { seller_codes: read.body.seller_codes })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.seller_codes).toEqual(['MAIN', 'SELLER_B'])
  })

  it('cannot delete it: SELLER_B sells it too (403, still there)', async () => {
    for (const url of [`${OFFERS}/OF_INTERNET`, `${V1}/OF_INTERNET`]) {
      const answer = await asMain('DELETE', url)
      expect(answer.status, url).toBe(403)
      expect(answer.body.message).toContain('sellers you may not act for')
    }
    expect(await sellersOf('OF_INTERNET')).toEqual(['MAIN', 'SELLER_B'])
  })

  it('does all of it in bulk the same way, each operation answered as alone', async () => {
    const answer = await asMain('POST', `${OFFERS}/bulk`, {
      operations: [
        { action: 'upsert', code: 'OF_INTERNET', body: { seller_codes: ['MAIN'], description: 'bulk' } },
        { action: 'create', body: { code: 'OF_BULK_B', name: 'B', seller_codes: ['SELLER_B'] } },
        { action: 'create', body: { code: 'OF_BULK_X', name: 'B', seller_codes: ['NOBODY'] } },
        { action: 'upsert', code: 'OF_B', body: { seller_codes: ['MAIN'] } },
        { action: 'delete', code: 'OF_INTERNET' },
      ],
    })
    expect(answer.status).toBe(200)
    const [rewrite, hidden, unknown, foreign, removal] = answer.body.results
    expect(rewrite).toMatchObject({ status: 200, body: { description: 'bulk', seller_codes: ['MAIN', 'SELLER_B'] } })
    expect(hidden.status).toBe(400)
    expect(shape({ status: hidden.status, body: hidden.error }, 'SELLER_B')).toEqual(
      shape({ status: unknown.status, body: unknown.error }, 'NOBODY'),
    )
    expect(foreign).toMatchObject({ status: 403, error: { errorCode: 'FORBIDDEN' } })
    expect(removal).toMatchObject({ status: 403, error: { errorCode: 'FORBIDDEN' } })
    expect(await sellersOf('OF_INTERNET')).toEqual(['MAIN', 'SELLER_B'])
    expect(await sellersOf('OF_B')).toEqual(['SELLER_B'])
    expect((await t.request('GET', `${OFFERS}/OF_BULK_B`)).status).toBe(404)
  })
})

describe('a MAIN-only client creating offers', () => {
  const creates: [string, string, (code: string, seller: string) => [string, string, Record<string, unknown>]][] = [
    ['POST /v1/catalog/offers', 'seller_codes', (code, s) => ['POST', OFFERS, { code, name: code, seller_codes: [s] }]],
    [
      'POST /v1/catalog/offers/{code}',
      'seller_codes',
      (code, s) => ['POST', `${OFFERS}/${code}`, { seller_codes: [s] }],
    ],
    ['POST /api/v1/offerTemplates', 'sellers', (code, s) => ['POST', V1, { code, sellers: [s] }]],
  ]

  it.each(creates)(
    '%s: sold by SELLER_B is refused exactly as an unknown seller, and nothing is created',
    async (_name, field, body) => {
      const [method, url, hiddenBody] = body('OF_NEW_1', 'SELLER_B')
      const hidden = await asMain(method, url, hiddenBody)
      const [, unknownUrl, unknownBody] = body('OF_NEW_1', 'NOBODY')
      const unknown = await asMain(method, unknownUrl, unknownBody)
      expect(hidden.status).toBe(400)
      expect(hidden.body.details).toEqual([{ field: `${field}[0]`, message: "no seller with code 'SELLER_B'" }])
      expect(shape(hidden, 'SELLER_B')).toEqual(shape(unknown, 'NOBODY'))
      expect((await t.request('GET', `${OFFERS}/OF_NEW_1`)).status).toBe(404)
    },
  )

  it.each(creates)(
    '%s: without a seller is refused naming the field (it would be sold by all)',
    async (_n, field, body) => {
      const [method, url, withSeller] = body('OF_NEW_2', 'MAIN')
      const { [field]: _sellers, ...without } = withSeller
      const answer = await asMain(method, url, without)
      expect(answer.status).toBe(400)
      expect(answer.body.details).toEqual([{ field, message: expect.stringContaining('(MAIN)') }])
      expect((await t.request('GET', `${OFFERS}/OF_NEW_2`)).status).toBe(404)
    },
  )

  it.each(creates.map((c, i) => [...c, `OF_MAIN_${i}`] as const))('%s: sold by MAIN is created', async (...c) => {
    const [, , body, code] = c
    const [method, url, sent] = body(code, 'MAIN')
    const answer = await asMain(method, url, sent)
    expect(answer.status, JSON.stringify(answer.body)).toBe(201)
    expect(await sellersOf(code)).toEqual(['MAIN'])
  })
})

describe('a MAIN-only client naming sellers on its own offer', () => {
  it.each([
    [`${OFFERS}/OF_MAIN`, 'seller_codes'],
    [`${V1}/OF_MAIN`, 'sellers'],
  ])('%s: a hidden seller and an unknown one get the same answer, and nothing changes', async (url, field) => {
    const hidden = await asMain('PUT', url, { [field]: ['MAIN', 'SELLER_B'] })
    const unknown = await asMain('PUT', url, { [field]: ['MAIN', 'NOBODY'] })
    expect(hidden.status).toBe(400)
    expect(hidden.body.details).toEqual([{ field: `${field}[1]`, message: "no seller with code 'SELLER_B'" }])
    expect(shape(hidden, 'SELLER_B')).toEqual(shape(unknown, 'NOBODY'))
    expect(await sellersOf('OF_MAIN')).toEqual(['MAIN'])
  })
})

describe('a MAIN-only client on offers MAIN does not sell by name', () => {
  it.each([
    ['PUT', `${OFFERS}/OF_B`, { name: 'taken' }],
    ['POST', `${OFFERS}/OF_B`, { seller_codes: ['MAIN'] }],
    ['PUT', `${V1}/OF_B`, { lifeCycleStatus: 'RETIRED' }],
    ['POST', `${OFFERS}/OF_B/products`, { product_code: 'PR_NET' }],
    ['DELETE', `${OFFERS}/OF_B/products/PR_LICENSE`, undefined],
    ['DELETE', `${V1}/OF_B`, undefined],
    ['PUT', `${OFFERS}/OF_EVERYONE`, { seller_codes: ['MAIN'] }],
    ['DELETE', `${OFFERS}/OF_EVERYONE`, undefined],
  ])('%s %s is 403 and changes nothing', async (method, url, body) => {
    const before = (await t.request('GET', `${OFFERS}/${url.split('/')[4]}`)).body
    const answer = await asMain(method, url, body)
    expect(answer.status, JSON.stringify(answer.body)).toBe(403)
    expect(answer.body.errorCode).toBe('FORBIDDEN')
    expect((await t.request('GET', `${OFFERS}/${before.code}`)).body).toEqual(before)
  })
})

describe('deleting an offer in use', () => {
  it('tells a seller-restricted caller no count of subscriptions; an unrestricted one the count', async () => {
    await created(t, 'POST', V1, {
      code: 'OF_USED',
      name: 'Used',
      lifeCycleStatus: 'ACTIVE',
      offerComponents: [{ productCode: 'PR_LICENSE' }],
      sellers: ['MAIN', 'SELLER_B'],
    })
    const sub = (code: string) => [
      { subscriptionCode: code, offerTemplateCode: 'OF_USED', orderProducts: [{ productCode: 'PR_LICENSE' }] },
    ]
    await place(t, orderOf(sub('SUB_USED_MAIN')))
    await place(t, orderOfB('OF_USED', 'SUB_USED_B1'))
    await place(t, orderOfB('OF_USED', 'SUB_USED_B2'))
    // SELLER_B no longer sells it; its two subscriptions run on.
    await created(t, 'PUT', `${V1}/OF_USED`, { sellers: ['MAIN'] }, 200)
    for (const url of [`${OFFERS}/OF_USED`, `${V1}/OF_USED`]) {
      const restricted = await asMain('DELETE', url)
      expect(restricted.status, url).toBe(422)
      expect(restricted.body.errorCode).toBe('OFFER_HAS_ACTIVE_SUBSCRIPTIONS')
      expect(restricted.body.message).toBe(
        'Offer OF_USED has ACTIVE subscriptions: it cannot be deleted while they run',
      )
      const admin = await t.request('DELETE', url)
      expect(admin.body.message).toBe('Offer OF_USED has 3 ACTIVE subscriptions: it cannot be deleted while they run')
    }
  })
})

describe('an offer reservation by a MAIN-only client', () => {
  const reservation = (userAccountCode: string, sellerCode = 'MAIN') => ({
    sellerCode,
    offerCode: 'OF_INTERNET',
    userAccountCode,
    subscriptionDate: '2026-03-01',
    creditLimit: 1000,
  })
  const reserve = (body: unknown) => t.requestAs(mainWallets, 'POST', '/api/rest/billing/wallet/reservation', body)

  it('on SELLER_B’s user account answers exactly as on an unknown one (404), holding nothing', async () => {
    const hidden = await reserve(reservation('UA_B'))
    const unknown = await reserve(reservation('UA_NOBODY'))
    expect(hidden.status).toBe(404)
    expect(hidden.body).toEqual({
      status: 'FAIL',
      errorCode: 'ENTITY_NOT_FOUND',
      message: 'User account UA_B not found',
    })
    expect(shape(hidden, 'UA_B')).toEqual(shape(unknown, 'UA_NOBODY'))
    const open = await t.request('GET', '/api/v1/query/reservation?filters=' + encodeURIComponent('{"type":"OFFER"}'))
    expect(open.body.total).toBe(0)
  })

  it('for seller SELLER_B on its own account answers exactly as for an unknown seller', async () => {
    const hidden = await reserve(reservation('UA_1', 'SELLER_B'))
    const unknown = await reserve(reservation('UA_1', 'NOBODY'))
    expect(hidden.status).toBe(400)
    expect(shape(hidden, 'SELLER_B')).toEqual(shape(unknown, 'NOBODY'))
  })

  it('on its own seller’s account holds the offer', async () => {
    const held = await reserve(reservation('UA_1'))
    expect(held.status, JSON.stringify(held.body)).toBe(200)
    expect(held.body).toMatchObject({ status: 'OPEN', sellerCode: 'MAIN', userAccountCode: 'UA_1' })
  })
})
