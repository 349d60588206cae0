import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { installErrorHandling } from './error-handler.ts'
import { lazySerializers } from './serialization.ts'
import { validatorCompiler } from './validation.ts'

/** A server with Obol's compilers: validators and serializers compiled by their first use. */
async function server() {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: lazySerializers } } })
  app.setValidatorCompiler(validatorCompiler())
  installErrorHandling(app)
  app.post(
    '/items',
    {
      schema: {
        body: {
          type: 'object',
          required: ['quantity'],
          properties: { quantity: { type: 'integer', minimum: 1 } },
          additionalProperties: false,
        },
        querystring: { type: 'object', properties: { page: { type: 'integer' } } },
        response: { 200: { type: 'object', properties: { quantity: { type: 'integer' }, page: { type: 'integer' } } } },
      },
    },
    async (request) => ({ ...(request.body as object), page: (request.query as { page?: number }).page, secret: 'x' }),
  )
  // A response schema fast-json-stringify cannot compile (a reference to nothing).
  app.get('/broken', { schema: { response: { 200: { $ref: '#/definitions/missing' } } } }, async () => ({}))
  await app.ready()
  return app
}

describe('schemas compiled by their first use', () => {
  it('answers with the declared fields only and coerces the query string, as compiled at start', async () => {
    const app = await server()
    const response = await app.inject({ method: 'POST', url: '/items?page=2', payload: { quantity: 3 } })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ quantity: 3, page: 2 })
    // The second call uses the compiled serializer again.
    const again = await app.inject({ method: 'POST', url: '/items?page=4', payload: { quantity: 5 } })
    expect(again.json()).toEqual({ quantity: 5, page: 4 })
    await app.close()
  })

  it('refuses a bad body with 400 naming the field, on the first and later requests', async () => {
    const app = await server()
    for (const payload of [{ quantity: 0 }, { quantity: 0 }, { amount: 1 }]) {
      const response = await app.inject({ method: 'POST', url: '/items', payload })
      expect(response.statusCode).toBe(400)
      expect(JSON.stringify(response.json())).toContain(Object.keys(payload).includes('amount') ? 'amount' : 'quantity')
    }
    const valid = await app.inject({ method: 'POST', url: '/items', payload: { quantity: 1 } })
    expect(valid.statusCode).toBe(200)
    await app.close()
  })

  it('starts with a response schema that cannot be compiled, which fails its first call instead', async () => {
    const app = await server()
    const response = await app.inject({ method: 'GET', url: '/broken' })
    expect(response.statusCode).toBe(500)
    await app.close()
  })
})
