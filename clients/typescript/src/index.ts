// The typed Obol client: paths and schemas generated from the OpenAPI document (schema.d.ts, never edited by hand)
// and openapi-fetch to call them. Regenerate with `npm run client:generate` at the repository root.
import createClient, { type Client } from 'openapi-fetch'
import type { components, operations, paths } from './schema.d.ts'

export type { components, operations, paths }
/** The named schemas of the document: `Schemas['Customer']`, `Schemas['Error']`… */
export type Schemas = components['schemas']
export type ObolClient = Client<paths>

/** A token of the built-in issuer for a client id and secret (client credentials grant). */
export async function requestToken(
  baseUrl: string,
  credentials: { clientId: string; clientSecret: string; realm?: string },
): Promise<Schemas['TokenResponse']> {
  const client = createClient<paths>({ baseUrl })
  const { data, error, response } = await client.POST('/auth/realms/{realm}/protocol/openid-connect/token', {
    params: { path: { realm: credentials.realm ?? 'obol' } },
    body: {
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    },
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  if (!data) throw new Error(`token request failed (${response.status}): ${error?.error_description ?? ''}`)
  return data
}

/** A client calling the API with a bearer token. */
export function createObolClient(baseUrl: string, token: string): ObolClient {
  return createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } })
}
