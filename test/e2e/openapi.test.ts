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
})
