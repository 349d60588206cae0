import type { Caller } from '../caller.ts'
import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling: set by the access module from the token or session. */
    actor?: Pick<Caller, 'username'>
  }
}

/**
 * The caller recorded as creator / updater: set by authentication (every route that writes is guarded), so a
 * request without one is refused like one without a token rather than recorded under an invented name.
 */
export function actorOf(request: unknown): Pick<Caller, 'username'> {
  const actor = (request as FastifyRequest).actor
  if (!actor)
    throw new AppError('UNAUTHORIZED', 'A bearer token is required', { headers: { 'www-authenticate': 'Bearer' } })
  return actor
}
