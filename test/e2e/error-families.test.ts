import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'

// Each route family answers in its own error shape, set by the family's own Fastify scope: its routes' failures and
// an unknown path under one of its prefixes alike.
const t = useTestApp()

describe('error shapes by route family', () => {
  it.each([
    ['/api/rest/v2/nothing/here', { status: 'FAIL', errorCode: 'NOT_FOUND', code: 'NOT_FOUND' }],
    ['/api/v1/query/customer/1/x/y', { status: 'FAIL', errorCode: 'NOT_FOUND', code: 'NOT_FOUND' }],
    ['/api/v1/reportQueries/a/b/c/d/e', { status: 'FAIL', error_code: 'resource-not-found' }],
    ['/api/v1/reports/none', { status: 'FAIL', error_code: 'resource-not-found' }],
    ['/auth/realms/obol/nothing', { error: 'invalid_request' }],
    ['/api/v1/nothing', { status: 'FAIL', errorCode: 'NOT_FOUND' }],
  ])('an unknown path %s is a 404 in its family’s shape', async (url, shape) => {
    const res = await t.requestAs(undefined, 'GET', url)
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject(shape)
    expect(Object.keys(res.body).sort()).toEqual(
      [...Object.keys(shape), ...('error' in shape ? ['error_description'] : ['message'])].sort(),
    )
  })

  it('a failure inside a family’s route is in its shape: a bad Query API parameter, a bad token request', async () => {
    const query = await t.request('GET', '/api/v1/query/customer?limit=abc')
    expect(query.status).toBe(400)
    expect(query.body).toMatchObject({ status: 'FAIL', errorCode: 'INVALID_PARAMETER', code: 'INVALID_PARAMETER' })
    const token = await t.app.server.inject({
      method: 'POST',
      url: '/auth/realms/obol/protocol/openid-connect/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=password',
    })
    expect(token.statusCode).toBe(400)
    expect(Object.keys(token.json()).sort()).toEqual(['error', 'error_description'])
    const offers = await t.request('GET', '/v1/catalog/offers/NO_SUCH_OFFER')
    expect(offers.status).toBe(404)
    expect(offers.body).toMatchObject({ errorCode: 'OFFER_NOT_FOUND' })
  })
})
