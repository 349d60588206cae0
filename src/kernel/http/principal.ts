import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import type { Caller } from '../caller.ts'
import type { EntityDef } from '../model/index.ts'

/** The authenticated caller, from a bearer token or a portal session: the `Caller` and the token's own facts. */
export interface Principal extends Caller {
  /** Token subject (user id) */
  subject: string
  clientId: string | undefined
  /** The portal session a token was issued to (`/api/portal/token`): a reference, not the session id. */
  portalSession?: string
  /** The built-in issuer's realm that signed the token (AUTH_REALM or `opencell`); unset for an external issuer. */
  realm?: string
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal)
    throw new AppError('UNAUTHORIZED', 'A bearer token is required', { headers: { 'www-authenticate': 'Bearer' } })
  return request.principal
}

export function hasRole(principal: Pick<Caller, 'roles'>, role: string): boolean {
  return principal.roles.has(role)
}

export function requireRole(principal: Principal, role: string): void {
  if (!principal.roles.has(role)) throw new AppError('FORBIDDEN', `This operation needs the role ${role}`)
}

/** Reading an entity through the query layer needs the view role of its resource, or queryUser. */
export function requireEntityReadable(principal: Principal, entity: EntityDef): void {
  const viewRole = `${entity.resource}.view`
  if (!principal.roles.has(viewRole) && !principal.roles.has('queryUser')) {
    throw new AppError('FORBIDDEN', `Reading ${entity.name} needs the role ${viewRole} or queryUser`)
  }
}
