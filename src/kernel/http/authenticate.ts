import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import { isDatabaseUnavailable } from '../db/database-errors.ts'
import type { Principal } from './principal.ts'

export interface TokenVerifier {
  /** Resolves the principal of a valid token; throws (with `expired` true when it has expired) otherwise. */
  verify(token: string): Promise<Principal & { expiresAt: Date }>
}

declare module 'fastify' {
  interface FastifyRequest {
    tokenExpiresAt?: Date
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (!header) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1]
}

/**
 * Enforces the policy table: every `/api` route except public and portal ones needs a valid bearer token, and the
 * role its policy names. Missing or invalid token → 401 with `WWW-Authenticate`; missing role → 403 naming it.
 */
export function installAuthentication(app: FastifyInstance, verifier: TokenVerifier, realm: string): void {
  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url
    if (url === undefined || url.startsWith('/api/docs')) return
    const policy = request.routeOptions.config.policy
    if (policy && ('public' in policy || 'session' in policy)) return
    const token = bearerToken(request)
    if (!token) {
      throw new AppError('UNAUTHORIZED', 'A bearer token is required (Authorization: Bearer <access token>)', {
        headers: { 'www-authenticate': `Bearer realm="${realm}"` },
      })
    }
    let principal: Principal & { expiresAt: Date }
    try {
      principal = await verifier.verify(token)
    } catch (error) {
      // Checking a token reads its signing key and the caller's roles: without the database that is a 503 to retry,
      // not a token to throw away.
      if (isDatabaseUnavailable(error)) throw error
      const expired = (error as { expired?: boolean }).expired === true
      const description = expired ? 'The access token has expired' : 'The access token is invalid'
      throw new AppError('UNAUTHORIZED', description, {
        headers: {
          'www-authenticate': `Bearer realm="${realm}", error="invalid_token", error_description="${description}"`,
        },
      })
    }
    request.principal = principal
    request.tokenExpiresAt = principal.expiresAt
    request.actor = { username: principal.username }
    if (!policy) throw new AppError('FORBIDDEN', 'This route declares no role and is closed')
    if ('role' in policy && !principal.roles.has(policy.role)) {
      throw new AppError('FORBIDDEN', `This operation needs the role ${policy.role}`)
    }
    if ('anyRole' in policy && !policy.anyRole.some((r) => principal.roles.has(r))) {
      throw new AppError('FORBIDDEN', `This operation needs one of the roles ${policy.anyRole.join(', ')}`)
    }
  })
}
