import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { collectCompilations, compileAll } from '../../src/kernel/http/compile-all.ts'
import { lazySerializers } from '../../src/kernel/http/serialization.ts'
import { validatorCompiler } from '../../src/kernel/http/validation.ts'
import { useTestApp } from '../support/test-app.ts'

// Before the app is built (useTestApp builds it in beforeAll): remember every schema its routes hand the compilers.
collectCompilations()

/**
 * Route schemas are compiled by their first use, so one that cannot compile would fail only when its route is first
 * called: every validator and serializer of the built app is compiled here, each failure naming its route and part.
 */
describe('route schemas', () => {
  const t = useTestApp()

  it('compiles every request validator and response serializer of the app', () => {
    expect(t.app.server.hasRoute({ method: 'GET', url: '/api/v1/customers' })).toBe(true)
    const { compiled, failures } = compileAll()
    expect(failures).toEqual([])
    // Hundreds of operations, each with a success and its error statuses: far more than a partial collection.
    expect(compiled).toBeGreaterThan(1000)
  })

  it('names the route and the part of a schema that cannot compile', async () => {
    collectCompilations()
    const server = Fastify({ schemaController: { compilersFactory: { buildSerializer: lazySerializers } } })
    server.setValidatorCompiler(validatorCompiler())
    server.post(
      '/broken',
      {
        schema: {
          body: { type: 'object', properties: { a: { type: 'no-such-type' } } },
          response: { 200: { type: 'object', properties: { b: { $ref: '#/definitions/missing' } } } },
        },
      },
      async () => ({}),
    )
    await server.ready()
    const { failures } = compileAll()
    await server.close()
    expect(failures).toEqual([
      expect.stringMatching(/^POST \/broken body: /),
      expect.stringMatching(/^POST \/broken response 200: /),
    ])
  })
})
