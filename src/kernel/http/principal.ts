import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors.ts'
import type { EntityDef } from '../model/index.ts'

/** The authenticated caller, from a bearer token or a portal session. */
export interface Principal {
  /** Token subject (user id) */
  subject: string
  username: string
  clientId: string | undefined
  /** Roles from the caller's groups at token issue time. */
  roles: ReadonlySet<string>
  groups: readonly string[]
  /**
   * Row-level restriction: the seller codes the caller may see when every group
   * of theirs carries a seller list; null when any group is unrestricted.
   */
  sellerCodes: readonly string[] | null
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

export function hasRole(principal: Principal, role: string): boolean {
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
