/**
 * The portal session (login, logout, the bearer token it hands out, a group created with the session's CSRF token)
 * and the ApiError every refusal becomes. Calls to the public API go through the generated client (client.ts), which
 * sends them through `authorizedFetch`; who the caller is comes from the generated client too (session.ts).
 */

export interface ApiErrorBody {
  status?: string
  errorCode?: string
  message?: string
  line?: number
  column?: number
  details?: unknown[]
}

/** An answer other than 2xx, with the JSON body the API sent (message, error code, line and column for queries). */
export class ApiError extends Error {
  readonly status: number
  readonly body: ApiErrorBody
  /** Seconds to wait before retrying (Retry-After), when the API said so. */
  readonly retryAfterSec: number | undefined

  constructor(status: number, body: ApiErrorBody, retryAfter: string | null) {
    super(body.message ?? `The server answered ${status}`)
    this.status = status
    this.body = body
    this.retryAfterSec = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined
  }
}

/** The portal session is gone (expired, logged out elsewhere): the UI goes back to the login screen. */
export class SessionExpired extends Error {}

const SESSION_KEY = 'obol.session'

export interface PortalSession {
  username: string
  csrfToken: string
  expiresAt: string
}

let token: { value: string; until: number } | undefined
let expiredListener: (() => void) | undefined

export function storedSession(): PortalSession | undefined {
  const text = sessionStorage.getItem(SESSION_KEY)
  return text ? (JSON.parse(text) as PortalSession) : undefined
}

/** Called once by the app: it shows the login screen with a message. */
export function onSessionExpired(listener: () => void): void {
  expiredListener = listener
}

function forget(): void {
  sessionStorage.removeItem(SESSION_KEY)
  token = undefined
}

async function failure(response: Response): Promise<ApiError> {
  const text = await response.text()
  let body: ApiErrorBody
  try {
    body = JSON.parse(text) as ApiErrorBody
  } catch {
    body = { message: text || response.statusText }
  }
  return new ApiError(response.status, body, response.headers.get('retry-after'))
}

export async function login(username: string, password: string): Promise<PortalSession> {
  const response = await fetch('/api/portal/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  })
  if (!response.ok) throw await failure(response)
  const session = (await response.json()) as PortalSession
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session))
  token = undefined
  return session
}

export async function logout(): Promise<void> {
  const session = storedSession()
  forget()
  if (!session) return
  await fetch('/api/portal/logout', { method: 'POST', headers: { 'x-csrf-token': session.csrfToken } })
}

function expired(): SessionExpired {
  forget()
  expiredListener?.()
  return new SessionExpired('Your session has expired; log in again.')
}

/** The bearer token of the portal session, fetched again a little before it runs out. */
async function bearer(): Promise<string> {
  if (token && token.until > Date.now()) return token.value
  const response = await fetch('/api/portal/token', { credentials: 'same-origin' })
  if (response.status === 401) throw expired()
  if (!response.ok) throw await failure(response)
  const issued = (await response.json()) as { access_token: string; expires_in: number }
  token = { value: issued.access_token, until: Date.now() + Math.max(10, issued.expires_in - 30) * 1000 }
  return token.value
}

/**
 * Sends a request with the portal session's bearer token. The token may have run out between fetching it and using
 * it: a 401 is tried once more with a fresh one. The typed client (client.ts) sends every request through here.
 */
export async function authorizedFetch(request: Request): Promise<Response> {
  const spare = request.clone()
  const send = async (r: Request) => {
    r.headers.set('authorization', `Bearer ${await bearer()}`)
    return fetch(r)
  }
  const response = await send(request)
  if (response.status !== 401) return response
  token = undefined
  return send(spare)
}

/** The ApiError of an answer other than 2xx (its body already read as JSON, or text, by the typed client). */
export function apiError(response: Response, body: unknown): ApiError {
  const shaped: ApiErrorBody =
    body && typeof body === 'object' ? body : { message: typeof body === 'string' && body ? body : response.statusText }
  return new ApiError(response.status, shaped, response.headers.get('retry-after'))
}

// --- groups

/** Creates a custom group through the portal (session cookie and CSRF header, role api.groups.manage). */
export async function createGroup(input: { name: string; description?: string; roles: string[] }): Promise<unknown> {
  const session = storedSession()
  if (!session) throw expired()
  const response = await fetch('/api/portal/groups', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
    body: JSON.stringify(input),
  })
  if (response.status === 401) throw expired()
  if (!response.ok) throw await failure(response)
  return (await response.json()) as unknown
}
