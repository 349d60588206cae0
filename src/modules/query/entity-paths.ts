import type { EntityDef, EntityRegistry, FieldDef, FieldType, RelationDef } from '../../kernel/model/index.ts'

/** One relation crossed by a dotted path. */
export interface Hop {
  readonly relation: RelationDef
  readonly from: EntityDef
  readonly to: EntityDef
}

export type PathEnd =
  | { readonly kind: 'field'; readonly entity: EntityDef; readonly field: FieldDef }
  | {
      readonly kind: 'relation'
      readonly entity: EntityDef
      readonly relation: RelationDef
      readonly target: EntityDef
    }

export interface WalkedPath {
  readonly hops: readonly Hop[]
  readonly end: PathEnd
}

/** A path problem, phrased for the client (`seller.cod is not a field or relation of Seller`). */
export class PathProblem extends Error {}

/**
 * Follows `a.b.c` from an entity: every segment but the last must be a relation; the last is a field or a relation.
 * Names are the registry's wire names, matched exactly.
 */
export function walkPath(registry: EntityRegistry, entity: EntityDef, path: string): WalkedPath {
  const segments = path.split('.')
  if (segments.some((s) => s.length === 0)) throw new PathProblem(`'${path}' is not a valid path`)
  const hops: Hop[] = []
  let current = entity
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1
    const field = current.fields.get(segment)
    if (field && last) return { hops, end: { kind: 'field', entity: current, field } }
    const relation = current.relations.get(segment)
    if (!relation) {
      const what = field
        ? `${segment} is a field of ${current.name}, not a relation`
        : `${segment} is not a field or relation of ${current.name}`
      throw new PathProblem(what)
    }
    const target = registry.get(relation.target)
    if (!target.queryable) throw new PathProblem(`${segment} is not a field or relation of ${current.name}`)
    if (last) return { hops, end: { kind: 'relation', entity: current, relation, target } }
    hops.push({ relation, from: current, to: target })
    current = target
  }
  throw new PathProblem(`'${path}' is not a valid path`)
}

/** The type of a many-to-one's foreign key: the type of the target's id. */
export function keyType(registry: EntityRegistry, relation: RelationDef): FieldType {
  return registry.get(relation.target).fields.get('id')?.type ?? 'long'
}

export const isCollection = (hop: Hop) => hop.relation.kind === 'oneToMany'
