import { describe, expect, it } from 'vitest'
import Fastify from 'fastify'
import { useTestApp } from '../support/test-app.ts'
import { installErrorHandling } from '../../src/kernel/http/error-handler.ts'

const t = useTestApp()

describe('HTTP edges', () => {
  it('answers malformed JSON with a 400 JSON error', async () => {
    const response = await t.app.server.inject({
      method: 'POST',
      url: '/api/v1/languages',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
      payload: '{"code": "EN",',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ status: 'FAIL', errorCode: 'MALFORMED_JSON' })
  })

  it('answers a body of a content type the operation does not take with 415 saying what to send', async () => {
    // What curl -d sends when no content type is given.
    const response = await t.app.server.inject({
      method: 'POST',
      url: '/api/v1/languages',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${t.adminToken}` },
      payload: 'code=EN',
    })
    expect(response.statusCode).toBe(415)
    expect(response.json()).toMatchObject({ status: 'FAIL', errorCode: 'UNSUPPORTED_MEDIA_TYPE' })
    expect(response.json().message).toContain('application/x-www-form-urlencoded')
    expect(response.json().message).toContain('content-type: application/json')
  })

  it('accepts an empty body sent with a JSON content type as no body, and refuses prototype poisoning', async () => {
    const empty = await t.app.server.inject({
      method: 'POST',
      url: '/api/v1/jobs/JobExecutionPurge/run',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
      payload: '',
    })
    expect(empty.statusCode).toBe(202)
    const poisoned = await t.app.server.inject({
      method: 'POST',
      url: '/api/v1/languages',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.adminToken}` },
      payload: '{"code":"PP","__proto__":{"admin":true}}',
    })
    expect(poisoned.statusCode).toBe(400)
    expect(poisoned.json().errorCode).toBe('MALFORMED_JSON')
  })

  it('answers an unknown route with a 404 JSON error', async () => {
    const response = await t.request('GET', '/api/v1/nothing-here')
    expect(response.status).toBe(404)
    expect(response.body).toMatchObject({
      status: 'FAIL',
      errorCode: 'NOT_FOUND',
      message: 'No route GET /api/v1/nothing-here',
    })
  })

  it('answers a body over 1 MiB with 413 JSON and creates nothing', async () => {
    const response = await t.request('POST', '/api/v1/languages', { code: 'BIG', description: 'x'.repeat(1024 * 1024) })
    expect(response.status).toBe(413)
    expect(response.body.errorCode).toBe('PAYLOAD_TOO_LARGE')
    expect((await t.request('GET', '/api/v1/languages/BIG')).status).toBe(404)
  })

  it('names an unknown field and a field of the wrong type', async () => {
    const response = await t.request('POST', '/api/v1/languages', { code: 'EN', description: 5, colour: 'blue' })
    expect(response.status).toBe(400)
    expect(response.body.details).toEqual([
      { field: 'colour', message: 'is not a known field' },
      { field: 'description', message: 'expected a string or null' },
    ])
  })

  it('rejects a code with spaces and a query parameter of the wrong type', async () => {
    expect((await t.request('POST', '/api/v1/languages', { code: 'has space' })).body.details[0].field).toBe('code')
    const response = await t.request('GET', '/api/v1/languages?limit=many')
    expect(response.status).toBe(400)
    expect(response.body.details[0]).toEqual({ field: 'limit', message: 'query parameter expected an integer' })
  })

  it('puts an x-request-id on every response, errors included', async () => {
    for (const url of ['/health/live', '/api/v1/languages', '/api/v1/nothing']) {
      const response = await t.request('GET', url)
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  it('turns an unexpected failure into a 500 with a request id and nothing internal', async () => {
    const app = Fastify({ logger: false })
    installErrorHandling(app)
    app.get('/boom', async () => {
      throw new Error('relation "secret_table" does not exist at /src/internal.ts:12')
    })
    const response = await app.inject({ method: 'GET', url: '/boom' })
    expect(response.statusCode).toBe(500)
    const body = response.json()
    expect(body).toEqual({
      status: 'FAIL',
      errorCode: 'INTERNAL_ERROR',
      message: `An unexpected error occurred (request ${body.requestId})`,
      requestId: body.requestId,
    })
    expect(response.body).not.toContain('secret_table')
    await app.close()
  })
})

describe('health, metrics and docs', () => {
  it('reports live and ready with the database migrated', async () => {
    expect((await t.request('GET', '/health/live')).body).toEqual({ status: 'UP' })
    const ready = await t.request('GET', '/health/ready')
    expect(ready.status).toBe(200)
    expect(ready.body).toMatchObject({ status: 'UP', database: 'UP' })
  })

  it('exposes Prometheus metrics by route and status, pool and jobs', async () => {
    await t.request('GET', '/api/v1/languages')
    const response = await t.app.server.inject({ method: 'GET', url: '/metrics' })
    expect(response.headers['content-type']).toContain('text/plain')
    expect(response.body).toMatch(
      /obol_http_requests_total\{method="GET",route="\/api\/v1\/languages",status="200"\} \d+/,
    )
    expect(response.body).toContain('obol_http_request_duration_seconds_bucket')
    expect(response.body).toMatch(/obol_db_pool_connections\{state="total"\} \d+/)
    expect(response.body).toContain('obol_job_executions')
  })

  it('reports the resident memory, the V8 heap and the bounded caches on /metrics', async () => {
    await t.request('GET', '/api/v1/query/customer?limit=1')
    const text = (await t.app.server.inject({ method: 'GET', url: '/metrics' })).body
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
    // The app runs inside the test process: its gauges read this process's memory.
    const rss = value('process_resident_memory_bytes')
    expect(rss).toBeGreaterThan(20 * 1024 * 1024)
    expect(rss / process.memoryUsage.rss()).toBeGreaterThan(0.5)
    expect(rss / process.memoryUsage.rss()).toBeLessThan(2)
    const heapUsed = value('nodejs_heap_size_used_bytes')
    expect(heapUsed).toBeGreaterThan(0)
    expect(heapUsed).toBeLessThanOrEqual(value('nodejs_heap_size_total_bytes'))
    expect(value('nodejs_external_memory_bytes')).toBeGreaterThan(0)
    expect(Number(/^obol_cache_entries\{cache="query_statements"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1)
  })

  it('serves an OpenAPI document where every operation has a summary, its role and its error responses', async () => {
    const response = await t.request('GET', '/api/openapi.json')
    expect(response.status).toBe(200)
    const operations = Object.entries(response.body.paths as Record<string, Record<string, any>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    )
    expect(operations.length).toBeGreaterThan(90)
    for (const { path, method, op } of operations) {
      expect(op.summary, `${method} ${path}`).toBeTruthy()
      expect(op.description, `${method} ${path}`).toMatch(/Required role: |Public: no token needed|Portal route/)
      // Said once: a GET's automatic HEAD route shares its schema and must not write the role into it again.
      expect(
        op.description.match(/Required role: |Public: no token needed|Portal route/g),
        `${method} ${path}`,
      ).toHaveLength(1)
      expect(Object.keys(op.responses), `${method} ${path}`).toContain('400')
    }
    const createSeller = response.body.paths['/api/v1/sellers'].post
    expect(createSeller.description).toContain('Required role: `accounts.customers.manage`')
    expect(Object.keys(createSeller.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '409', '500']),
    )
  })

  it('serves the documentation UI', async () => {
    const response = await t.app.server.inject({ method: 'GET', url: '/api/docs/' })
    expect(response.statusCode).toBe(200)
    expect(response.body).toContain('<html')
  })
})

describe('route policy table', () => {
  it('declares a policy for every route', () => {
    const missing = t.app.policies.filter((p) => p.policy === undefined).map((p) => `${p.method} ${p.url}`)
    expect(missing).toEqual([])
  })
})
