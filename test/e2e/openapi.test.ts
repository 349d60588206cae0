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

  it('declares a success for every operation but the refused ones, 204 without content, and names its schemas', async () => {
    const { document, list } = await operations()
    for (const { op, name } of list) {
      const successes = Object.keys(op.responses).filter((status) => status.startsWith('2'))
      // Opencell's writes are served to be refused: 405 is all they answer.
      if (op.responses['405'] && successes.length === 0) continue
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

  it('lists the required fields of every object a success answers with', async () => {
    const { document, list } = await operations()
    const schemas = document.components.schemas as Record<string, any>
    const missing = new Set<string>()
    // Every object schema with properties, reached from a 2xx body through $ref, items, properties and the
    // combinators; each component once per walk (the registry's schemas nest into one another).
    const walk = (schema: any, where: string, seen: Set<string>): void => {
      if (typeof schema !== 'object' || schema === null) return
      if (typeof schema.$ref === 'string') {
        const name = schema.$ref.replace('#/components/schemas/', '')
        if (seen.has(name)) return
        walk(schemas[name], `${where} → ${name}`, new Set([...seen, name]))
        return
      }
      if (schema.properties && Object.keys(schema.properties).length > 0 && !Array.isArray(schema.required))
        missing.add(where)
      for (const [key, value] of Object.entries(schema.properties ?? {})) walk(value, `${where}.${key}`, seen)
      for (const key of ['items', 'additionalProperties', 'not']) walk(schema[key], `${where}.${key}`, seen)
      for (const key of ['anyOf', 'oneOf', 'allOf'])
        (schema[key] ?? []).forEach((part: unknown, i: number) => walk(part, `${where}.${key}[${i}]`, seen))
    }
    let walked = 0
    for (const { op, name } of list)
      for (const [status, response] of Object.entries(op.responses as Record<string, any>))
        if (status.startsWith('2'))
          for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, any>)) {
            walked++
            walk(media.schema, `${name} ${status} ${type}`, new Set())
          }
    expect(walked).toBeGreaterThan(200)
    expect([...missing]).toEqual([])
    // The envelopes a client reads first.
    const body = (path: string): any => document.paths[path].get.responses['200'].content['application/json'].schema
    expect(body('/api/v1/query/{entity}').anyOf[0].required).toEqual(['limit', 'offset', 'data'])
    expect(body('/api/v1/query/{entity}/count').required).toEqual(['total'])
    expect(body('/api/v1/billingRunSchedules').required).toEqual(['total', 'offset', 'data'])
  })

  it('points every error response at a named schema', async () => {
    const { document, list } = await operations()
    // The error bodies of the route families, and readiness's own answer when it is not ready.
    const named = new Set(Object.keys(document.components.schemas))
    const inline: string[] = []
    let errors = 0
    for (const { op, name, method } of list)
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (!/^[45]/.test(status)) continue
        errors++
        // A HEAD answer has no body, errors included.
        if (method === 'head') {
          expect(response.content, `${name} ${status}`).toBeUndefined()
          continue
        }
        const media = Object.values((response.content ?? {}) as Record<string, any>)
        const refs = media.map((m) => String(m.schema?.$ref ?? '').replace('#/components/schemas/', ''))
        if (media.length === 0 || !refs.every((ref) => named.has(ref))) inline.push(`${name} ${status}`)
      }
    expect(errors).toBeGreaterThan(1000)
    expect(inline).toEqual([])
    const offers = document.paths['/v1/catalog/offers'].get.responses['416'].content['application/json']
    expect(offers.schema.$ref).toBe('#/components/schemas/Error')
  })

  it('declares what is served: the HEAD and refused writes of Opencell’s generic API, under both prefixes', async () => {
    const { document, list } = await operations()
    const ids = new Map(list.map(({ op, name }) => [name, op.operationId]))
    for (const [prefix, suffix] of [
      ['/api/rest/v2', ''],
      ['/opencell/api/rest/v2', 'AtContextPath'],
    ] as const) {
      expect(ids.get(`HEAD ${prefix}/generic/{entity}/{id}`)).toBe(`headGenericRecord${suffix}`)
      expect(ids.get(`GET ${prefix}/generic/{entity}/{id}`)).toBe(`getGenericRecord${suffix}`)
      expect(ids.get(`POST ${prefix}/generic/all/{entity}`)).toBe(`searchGenericRecords${suffix}`)
      for (const [method, path, id] of [
        ['post', `${prefix}/generic/{entity}`, 'createGenericRecord'],
        ['put', `${prefix}/generic/{entity}/{id}`, 'updateGenericRecord'],
        ['delete', `${prefix}/generic/{entity}/{id}`, 'deleteGenericRecord'],
      ] as const) {
        const op = document.paths[path][method]
        expect(op.operationId).toBe(`${id}${suffix}`)
        expect(op.responses['405'].content['application/json'].schema.$ref).toBe('#/components/schemas/QueryError')
        expect(
          Object.keys(op.responses).filter((status) => /^2|409/.test(status)),
          path,
        ).toEqual([])
      }
      const head = document.paths[`${prefix}/generic/{entity}`].head
      expect(head.responses['200'].content).toBeUndefined()
      expect(head.responses['404']).toBeDefined()
    }
    // What the server refuses is not announced: only PATCH stays undocumented on the generic record.
    expect(document.paths['/api/rest/v2/generic/{entity}/{id}'].patch).toBeUndefined()
    const reserve = document.paths['/api/rest/billing/mediation/reserveCdr'].post.requestBody.content
    expect(Object.keys(reserve)).toEqual(['text/plain', 'application/json'])
    const authentication = document.tags.find((tag: { name: string }) => tag.name === 'Authentication')
    expect(authentication.description).not.toMatch(/password grant/i)
    const grants = document.paths['/auth/realms/{realm}/.well-known/openid-configuration']
    expect(grants.get.operationId).toBe('getOpenidConfiguration')
  })

  it('answers a documented HEAD and refused write as the document says, on both prefixes', async () => {
    for (const prefix of ['/api/rest/v2', '/opencell/api/rest/v2']) {
      const head = await t.app.server.inject({
        method: 'HEAD',
        url: `${prefix}/generic/customer`,
        headers: { authorization: `Bearer ${t.adminToken}` },
      })
      expect(head.statusCode).toBe(200)
      expect(head.body).toBe('')
      const created = await t.request('POST', `${prefix}/generic/customer`, { code: 'X' })
      expect(created.status).toBe(405)
      expect(created.headers.allow).toBe('GET, HEAD')
      expect(created.body.errorCode).toBe('METHOD_NOT_ALLOWED')
      const deleted = await t.request('DELETE', `${prefix}/generic/customer/1`)
      expect(deleted.status).toBe(405)
      expect(deleted.headers.allow).toBe('GET, HEAD, POST')
    }
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
