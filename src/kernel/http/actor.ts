import type { FastifyRequest } from 'fastify'
import type { Actor } from '../resources/resource.service.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling: set by the access module from the token or session. */
    actor?: Actor
  }
}

/** The caller recorded as creator / updater. */
export function actorOf(request: unknown): Actor {
  return (request as FastifyRequest).actor ?? { username: 'anonymous' }
}
