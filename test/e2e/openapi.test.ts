import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'

/** The OpenAPI document as the contract clients are generated from. */
describe('OpenAPI contract', () => {
  const t = useTestApp()
  const operations = async () => {
    const document = (await t.request('GET', '/api/openapi.json')).body
    const list = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op, name: `${method.toUpperCase()} ${path}` })),
    )
    return { document, list }
  }

  it('gives every operation a unique operationId and a declared tag', async () => {
    const { document, list } = await operations()
    const declared = (document.tags as { name: string; description: string }[]).map((tag) => tag.name)
    const ids = new Map<string, string>()
    for (const { op, name } of list) {
      expect(op.operationId, name).toMatch(/^[a-z][A-Za-z0-9]+$/)
      expect(ids.get(op.operationId), `${name} repeats an operationId`).toBeUndefined()
      ids.set(op.operationId, name)
      expect(op.tags, name).toHaveLength(1)
      expect(declared, name).toContain(op.tags[0])
    }
    for (const tag of document.tags) expect(tag.description, tag.name).toBeTruthy()
    expect(ids.get('listCustomers')).toBe('GET /api/v1/customers')
    expect(ids.get('getCustomer')).toBe('GET /api/v1/customers/{code}')
    expect(ids.get('previewOrder')).toBe('POST /api/v1/orders/preview')
    expect(ids.get('requestToken')).toBe('POST /auth/realms/{realm}/protocol/openid-connect/token')
  })

  it('declares a success for every operation, 204 without content, and names its schemas', async () => {
    const { document, list } = await operations()
    for (const { op, name } of list) {
      const successes = Object.keys(op.responses).filter((status) => status.startsWith('2'))
      expect(successes, name).not.toHaveLength(0)
      if (op.responses['204']) expect(op.responses['204'].content, name).toBeUndefined()
    }
    const schemas = document.components.schemas
    for (const named of ['Error', 'ErrorV1', 'OAuthError', 'QueryError', 'Customer', 'CustomerInput', 'CustomerPage'])
      expect(schemas[named], named).toBeDefined()
    expect(schemas.Customer.required).toEqual(expect.arrayContaining(['id', 'code', 'seller', 'auditable']))
    const getCustomer = document.paths['/api/v1/customers/{code}'].get
    expect(getCustomer.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Customer',
    })
    expect(getCustomer.responses['404'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error')
    expect(getCustomer.responses['409'], 'no 409 on a GET').toBeUndefined()
    const clientSecret = document.paths['/api/v1/clients'].post.responses['201'].content['application/json'].schema
    expect(clientSecret.$ref).toBe('#/components/schemas/ClientWithSecret')
    expect(schemas.ClientWithSecret.required).toContain('clientSecret')
    const reportError = document.paths['/api/v1/reportQueries'].post.responses['400'].content['application/json']
    expect(reportError.schema.$ref).toBe('#/components/schemas/ErrorV1')
    expect(schemas.ErrorV1.required).toEqual(['status', 'message', 'error_code'])
    const token = document.paths['/auth/realms/{realm}/protocol/openid-connect/token'].post
    expect(token.requestBody.content['application/x-www-form-urlencoded']).toBeDefined()
    expect(token.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/OAuthError')
    expect(Object.keys(token.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']))
    const deferred = document.paths['/api/v1/reports/agedReceivables'].get
    expect(Object.keys(deferred.responses)).toContain('501')
  })

  it('offers the client-credentials flow of the built-in issuer; public routes need no token', async () => {
    const { document, list } = await operations()
    expect(document.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
      'http://obol.test/auth/realms/obol/protocol/openid-connect/token',
    )
    expect(document.security).toContainEqual({ oauth2: [] })
    const open = list.filter(({ op }) => op.description.includes('Public: no token needed'))
    expect(open.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['GET /health/live', 'POST /auth/realms/{realm}/protocol/openid-connect/token']),
    )
    for (const { op, name } of open) expect(op.security, name).toEqual([])
    for (const { op, name } of list.filter(({ op }) => !op.description.includes('Public: no token needed')))
      expect(op.security, name).not.toEqual([])
  })
})
