import type { AddressInfo } from 'node:net'
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
})
