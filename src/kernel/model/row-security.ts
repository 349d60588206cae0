import { sql, type SQL } from 'drizzle-orm'
import type { EntityDef, EntityRegistry } from './registry.ts'
import { textArray } from './json.ts'

import type { SellerCodes } from '../caller.ts'

export type { SellerCodes }

/** A record whose seller has `code` is visible to the caller: unrestricted, or restricted to a list naming it. */
export function sellerCodeVisible(code: string, sellerCodes: SellerCodes): boolean {
  return sellerCodes === null || sellerCodes.includes(code)
}

const ident = (name: string) => sql.identifier(name)

function tableOf(entity: EntityDef): SQL {
  return entity.schema === 'public'
    ? sql`${ident(entity.tableName)}`
    : sql`${ident(entity.schema)}.${ident(entity.tableName)}`
}

/** Aliases `prefix1`, `prefix2`, … for the sub-selects of one statement. */
export function aliasSequence(prefix: string): (hint: string) => string {
  let n = 0
  return (hint) => `${prefix}${hint}${++n}`
}

/**
 * Seller row-level security, the one rule every reader and writer of business entities applies: a row of a business
 * entity (as `alias`) is visible when the seller its registry `sellerPath` leads to (the row itself for a seller) has
 * one of `sellerCodes`. Child sellers of a listed seller are not included. Undefined when nothing is restricted: the
 * caller is unrestricted or the entity is not a business entity. `newAlias` names the sub-selects (the Query API
 * numbers them with the rest of its statement).
 */
export function sellerRestriction(
  registry: EntityRegistry,
  entity: EntityDef,
  alias: string,
  sellerCodes: SellerCodes,
  newAlias: (hint: string) => string = aliasSequence('rs_'),
): SQL | undefined {
  if (sellerCodes === null || !entity.business || entity.sellerPath === undefined) return undefined
  const segments = entity.sellerPath === '' ? [] : entity.sellerPath.split('.')
  return sellerChain(registry, entity, alias, segments, sellerCodes, newAlias)
}

function sellerChain(
  registry: EntityRegistry,
  entity: EntityDef,
  alias: string,
  segments: readonly string[],
  codes: readonly string[],
  newAlias: (hint: string) => string,
): SQL {
  const [first, ...rest] = segments
  if (first === undefined) {
    const code = entity.fields.get(entity.codeField ?? 'code')?.column ?? 'code'
    return sql`${ident(alias)}.${ident(code)} = any(${textArray(codes)})`
  }
  const relation = entity.relations.get(first)
  if (relation?.kind !== 'manyToOne') throw new Error(`row security: seller path of ${entity.name} crosses ${first}`)
  const target = registry.get(relation.target)
  const s = newAlias('s')
  const id = target.fields.get('id')?.column ?? 'id'
  return sql`${ident(alias)}.${ident(relation.column!)} in (select ${ident(s)}.${ident(id)} from ${tableOf(target)} ${ident(s)} where ${sellerChain(registry, target, s, rest, codes, newAlias)})`
}
