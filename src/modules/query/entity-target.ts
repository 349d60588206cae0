import { AppError } from '../../kernel/errors.ts'
import { hasRole, requireEntityReadable, type Principal } from '../../kernel/http/principal.ts'
import { entityFullName, type EntityDef, type EntityRegistry } from '../../kernel/model/index.ts'
import type { Condition } from './query.model.ts'
import type { CompiledStatement } from './statement-cache.ts'

/** The resolved `{entity}` of a path: an entity, or one of its subclasses (restricted to its discriminator value). */
export interface Target {
  readonly entity: EntityDef
  readonly name: string
  readonly fullName: string
  readonly restriction: Condition | undefined
}

/** A caller reads an entity with the view role of its resource, or with queryUser. */
export const canRead = (principal: Principal, entity: EntityDef): boolean =>
  hasRole(principal, `${entity.resource}.view`) || hasRole(principal, 'queryUser')

export const shorten = (text: string): string => (text.length > 100 ? `${text.slice(0, 100)}…` : text)

/** The entity a token names (simple or full name, camelCase), or a subclass token as its entity restricted to it. */
export function resolveTarget(registry: EntityRegistry, token: string): Target {
  const entity = registry.find(token)
  if (entity?.queryable) return { entity, name: entity.name, fullName: entity.fullName, restriction: undefined }
  // A subclass token (calendarPeriod) is its entity restricted to the subclass's discriminator value.
  const sub = registry.findSubclass(token)
  const inheritance = sub?.entity.inheritance
  if (sub?.entity.queryable && inheritance) {
    const wanted = token.trim().toLowerCase()
    const fullNameOf = (name: string) => entityFullName(sub.entity.package, name)
    const name = Object.keys(inheritance.subclasses).find(
      (n) => n.toLowerCase() === wanted || fullNameOf(n).toLowerCase() === wanted,
    )
    if (name) {
      const restriction: Condition = {
        kind: 'compare',
        target: { relations: [], field: inheritance.discriminator },
        op: '=',
        value: { kind: 'text', text: sub.value },
        ignoreCase: false,
      }
      return { entity: sub.entity, name, fullName: fullNameOf(name), restriction }
    }
  }
  throw new AppError('ENTITY_NOT_FOUND', `Entity ${shorten(token)} not found`)
}

/** The target of a token the caller may read (its view role, or queryUser). */
export function authorizedTarget(registry: EntityRegistry, principal: Principal, token: string): Target {
  const target = resolveTarget(registry, token)
  requireEntityReadable(principal, target.entity)
  return target
}

/** Every entity a statement reads needs the caller's view role of its resource, or queryUser, as its root does. */
export function authorizeReached(principal: Principal, compiled: CompiledStatement): CompiledStatement {
  for (const entity of compiled.reached) requireEntityReadable(principal, entity)
  return compiled
}

/** Any Query API use needs queryUser or the view role of at least one entity's resource. */
export function requireSomeReadable(registry: EntityRegistry, principal: Principal): void {
  if (!registry.queryable().some((entity) => canRead(principal, entity))) {
    throw new AppError('FORBIDDEN', 'The Query API needs the role queryUser or the view role of an entity')
  }
}
