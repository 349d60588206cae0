/**
 * The typed client generated from the OpenAPI document (clients/typescript), bound to the portal session: every call
 * carries its bearer token (api.ts) and an answer other than 2xx becomes an ApiError the screens show plainly.
 */
import createClient from 'openapi-fetch'
import type { paths, Schemas } from '../../clients/typescript/src/index.ts'
import { apiError, authorizedFetch } from './api.ts'

export type { Schemas }

/** The JSON a GET of a path answers with 200: `Got<'/api/v1/charges/{code}/pricing'>`. */
export type Got<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer T } } } }
}
  ? T
  : never

// The document serves under the page's own origin; openapi-fetch needs an absolute base to build its requests.
export const api = createClient<paths>({ baseUrl: window.location.origin, fetch: authorizedFetch })

/** The data of a typed call, or the ApiError of its refusal. */
export async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending
  if (!response.ok) throw apiError(response, error)
  return data as T
}
