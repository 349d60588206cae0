import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript'
import { describe, expect, it } from 'vitest'
import { walkthrough } from '../../clients/typescript/examples/walkthrough.ts'
import { TEST_ADMIN, useTestApp } from '../support/test-app.ts'

describe('the generated TypeScript client', () => {
  const t = useTestApp()

  it('runs the README walk-through as a typed program against a listening server', async () => {
    await t.app.server.listen({ port: 0, host: '127.0.0.1' })
    const { port } = t.app.server.server.address() as AddressInfo
    const result = await walkthrough(`http://127.0.0.1:${port}`, {
      clientId: TEST_ADMIN.clientId,
      clientSecret: TEST_ADMIN.clientSecret,
    })
    expect(result.session.clientId).toBe(TEST_ADMIN.clientId)
    expect(result.customer).toMatchObject({ code: 'ACME', description: 'Acme Corporation', seller: 'MAIN' })
    expect(result.refused).toMatchObject({ status: 'FAIL', errorCode: 'VALIDATION_FAILED' })
    expect(result.jobs).toBeGreaterThan(0)
    expect(result.timeZone).toBe('Europe/Paris')
  })

  it('is generated from the document the server serves now (run `npm run client:generate` when this fails)', async () => {
    const document = (await t.request('GET', '/api/openapi.json')).body
    // The file is kept exactly as the generator writes it (prettier leaves it alone), so no formatting is needed here.
    const generated = `${COMMENT_HEADER}${astToString(await openapiTS(document))}`
    const committed = fs.readFileSync(new URL('../../clients/typescript/src/schema.d.ts', import.meta.url), 'utf8')
    // A plain comparison: a diff of two large texts would bury the one instruction that matters.
    if (generated !== committed)
      expect.fail(
        'clients/typescript/src/schema.d.ts is not what openapi-typescript generates from the current OpenAPI ' +
          'document: run `npm run client:generate` and commit the result',
      )
  })
})
