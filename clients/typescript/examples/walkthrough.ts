// The README walk-through as a typed program: every path, body and answer below is checked against the generated
// types, and test/e2e/client.test.ts runs it against a server.
import { createObolClient, requestToken, type Schemas } from '../src/index.ts'

export interface WalkthroughResult {
  session: Schemas['Session']
  customer: Schemas['Customer']
  refused: Schemas['Error']
  jobs: number
  timeZone: unknown
}

export async function walkthrough(
  baseUrl: string,
  credentials: { clientId: string; clientSecret: string },
): Promise<WalkthroughResult> {
  const token = await requestToken(baseUrl, credentials)
  const api = createObolClient(baseUrl, token.access_token)

  // Who am I: the token's roles come from the groups of the client's service account.
  const session = (await api.GET('/api/v1/auth/session')).data!

  // Reference data and the account hierarchy are v1 resources: create (201), get by code, list, update, delete.
  await api.POST('/api/v1/sellers', { body: { code: 'MAIN', description: 'Main seller' } })
  const created = await api.POST('/api/v1/customers', {
    body: { code: 'ACME', description: 'Acme Corp', seller: 'MAIN' },
  })
  if (created.response.status !== 201) throw new Error(`customer not created: ${created.response.status}`)
  const updated = await api.PUT('/api/v1/customers/{code}', {
    params: { path: { code: 'ACME' } },
    body: { description: 'Acme Corporation' },
  })
  const page = await api.GET('/api/v1/customers', { params: { query: { limit: 10, sortBy: 'code' } } })
  if (page.data?.data.every((c) => c.code !== 'ACME')) throw new Error('ACME is not listed')

  // Bad input is a 400 naming the field, and changes nothing.
  const refused = await api.POST('/api/v1/customers', { body: { code: 'X', seller: 'NOPE' } })

  // Jobs, and the tenant settings.
  const jobs = await api.GET('/api/v1/jobs')
  const settings = await api.PUT('/api/v1/tenantSettings', { body: { timeZone: 'Europe/Paris' } })

  return {
    session,
    customer: updated.data!,
    refused: refused.error!,
    jobs: Object.keys(jobs.data ?? {}).length,
    timeZone: settings.data?.timeZone,
  }
}
