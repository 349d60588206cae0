import type { EntityDef, EntityRegistry, FieldType } from '../../kernel/model/index.ts'
import { PathProblem, walkPath, type WalkedPath } from './entity-paths.ts'
import { type FieldPath, type Projection, type RelationProjection, type SortKey } from './query.model.ts'
import { parameterError } from './parameter-error.ts'

/*
 * What a list answers (its projection: fields, nested relations, depth, excluding) and in which order (sortBy,
 * sortOrder), from a request's names: every path walked through the registry, every problem named by its parameter.
 */

/** A dotted path from the entity through the registry; a path that leads nowhere is an error on `parameter`. */
export function walk(registry: EntityRegistry, entity: EntityDef, parameter: string, path: string): WalkedPath {
  try {
    return walkPath(registry, entity, path)
  } catch (error) {
    if (error instanceof PathProblem) throw parameterError(parameter, error.message)
    throw error
  }
}

type NestTree = Map<string, NestTree>

/** `nested` paths as a tree of relation names; every segment must be a relation. */
export function nestTree(
  registry: EntityRegistry,
  entity: EntityDef,
  parameter: string,
  paths: readonly string[],
): NestTree {
  const root: NestTree = new Map()
  for (const path of paths) {
    const walked = walk(registry, entity, parameter, path)
    if (walked.end.kind !== 'relation') throw parameterError(parameter, `${path} is a field, not a relation`)
    let node = root
    for (const name of [...walked.hops.map((h) => h.relation.name), walked.end.relation.name]) {
      let child = node.get(name)
      if (!child) {
        child = new Map()
        node.set(name, child)
      }
      node = child
    }
  }
  return root
}

/** An entity as a list writes it by default: every field, many-to-ones as `{ "id": n }`, no collections. */
export function entityProjection(registry: EntityRegistry, entity: EntityDef): Projection {
  return fullProjection(registry, entity, new Map(), 0, true)
}

/**
 * An entity written in full: every field; relations listed in
 * `nested` in full; below a listed relation, `remaining` further levels of relations and collections in full;
 * other many-to-ones as `{ "id": n }`; other collections left out. At the root, depth does not apply.
 */
export function fullProjection(
  registry: EntityRegistry,
  entity: EntityDef,
  tree: NestTree,
  remaining: number,
  root: boolean,
  depth = remaining,
): Projection {
  const relations: RelationProjection[] = []
  for (const relation of entity.relations.values()) {
    const target = registry.get(relation.target)
    if (!target.queryable) continue
    const listed = tree.get(relation.name)
    if (listed)
      relations.push({ name: relation.name, shape: fullProjection(registry, target, listed, depth, false, depth) })
    else if (!root && remaining > 0) {
      relations.push({
        name: relation.name,
        shape: fullProjection(registry, target, new Map(), remaining - 1, false, depth),
      })
    } else if (relation.kind === 'manyToOne') relations.push({ name: relation.name, shape: 'reference' })
  }
  return { fields: [...entity.fields.keys()], relations }
}

type DraftRelation =
  { kind: 'reference' } | { kind: 'partial'; draft: Draft } | { kind: 'full'; projection: Projection }

interface Draft {
  fields: string[]
  relations: Map<string, DraftRelation>
}

/** `fields`: the root's listed fields (id always), dotted paths as objects holding only the requested leaves. */
export function projectFields(
  registry: EntityRegistry,
  entity: EntityDef,
  parameter: string,
  fields: readonly string[],
  tree: NestTree,
  depth: number,
): Projection {
  const root: Draft = { fields: entity.fields.has('id') ? ['id'] : [], relations: new Map() }
  // Relations listed in nested are written in full, whether or not fields names them.
  for (const [name, subtree] of tree) {
    const target = registry.get(entity.relations.get(name)!.target)
    root.relations.set(name, {
      kind: 'full',
      projection: fullProjection(registry, target, subtree, depth, false, depth),
    })
  }
  for (const path of fields) {
    const walked = walk(registry, entity, parameter, path)
    let draft: Draft | undefined = root
    for (const hop of walked.hops) {
      const existing: DraftRelation | undefined = draft.relations.get(hop.relation.name)
      if (existing?.kind === 'full') {
        draft = undefined
        break
      }
      if (existing?.kind === 'partial') {
        draft = existing.draft
        continue
      }
      const child: Draft = { fields: [], relations: new Map() }
      draft.relations.set(hop.relation.name, { kind: 'partial', draft: child })
      draft = child
    }
    if (!draft) continue
    if (walked.end.kind === 'field') {
      if (!draft.fields.includes(walked.end.field.name)) draft.fields.push(walked.end.field.name)
    } else if (!draft.relations.has(walked.end.relation.name)) {
      draft.relations.set(walked.end.relation.name, { kind: 'reference' })
    }
  }
  return finish(root)
}

function finish(draft: Draft): Projection {
  const relations: RelationProjection[] = []
  for (const [name, relation] of draft.relations) {
    if (relation.kind === 'reference') relations.push({ name, shape: 'reference' })
    else if (relation.kind === 'partial') relations.push({ name, shape: finish(relation.draft) })
    else relations.push({ name, shape: relation.projection })
  }
  return { fields: draft.fields, relations }
}

/** `excluding`: drops a field or relation (dotted paths reach into written relations). */
export function exclude(registry: EntityRegistry, entity: EntityDef, projection: Projection, path: string): Projection {
  walk(registry, entity, 'excluding', path)
  const [head, ...rest] = path.split('.') as [string, ...string[]]
  if (rest.length === 0) {
    return {
      fields: projection.fields.filter((f) => f !== head),
      relations: projection.relations.filter((r) => r.name !== head),
    }
  }
  const relation = entity.relations.get(head)!
  return {
    fields: projection.fields,
    relations: projection.relations.map((r) =>
      r.name === head && r.shape !== 'reference'
        ? { name: r.name, shape: exclude(registry, registry.get(relation.target), r.shape, rest.join('.')) }
        : r,
    ),
  }
}

// ------------------------------------------------------------------------------------------------------- sorting

/** A scalar column reached through many-to-one relations only (sorting, grouping, aggregates). */
export function columnPath(
  registry: EntityRegistry,
  entity: EntityDef,
  parameter: string,
  path: string,
  allowRelation: boolean,
): { target: FieldPath; type: FieldType } {
  const walked = walk(registry, entity, parameter, path)
  if (walked.hops.some((h) => h.relation.kind === 'oneToMany'))
    throw parameterError(parameter, `${path} goes through a collection`)
  const relations = walked.hops.map((h) => h.relation.name)
  if (walked.end.kind === 'relation') {
    if (!allowRelation || walked.end.relation.kind !== 'manyToOne')
      throw parameterError(parameter, `${path} is a relation; name one of its fields`)
    return {
      target: { relations, field: walked.end.relation.name },
      type: walked.end.target.fields.get('id')?.type ?? 'long',
    }
  }
  const type = walked.end.field.type
  if (type === 'json' || type === 'stringList') throw parameterError(parameter, `${path} is not a scalar field`)
  return { target: { relations, field: walked.end.field.name }, type }
}

export function directions(count: number, orders: readonly boolean[]): boolean[] {
  if (orders.length > 1 && orders.length !== count) {
    throw parameterError('sortOrder', 'expected one sort order, or one per sortBy entry')
  }
  return Array.from({ length: count }, (_, i) => orders[orders.length === 1 ? 0 : i] ?? false)
}

/** sortBy (dotted paths allowed), then `id` so pages are stable. */
export function entityOrder(
  registry: EntityRegistry,
  entity: EntityDef,
  sortBy: readonly string[],
  orders: readonly boolean[],
): SortKey[] {
  const keys = sortBy.length === 0 && entity.fields.has('id') ? ['id'] : sortBy
  const descending = directions(keys.length, orders)
  // Sorting never filters: the joins it needs are outer joins, so rows without the related record stay (last).
  const result: SortKey[] = keys.map((path, i) => ({
    by: { kind: 'field', target: { ...columnPath(registry, entity, 'sortBy', path, true).target, leftJoin: true } },
    descending: descending[i]!,
  }))
  const hasId = result.some(
    (k) => k.by.kind === 'field' && k.by.target.relations.length === 0 && k.by.target.field === 'id',
  )
  if (!hasId && entity.fields.has('id')) {
    result.push({
      by: { kind: 'field', target: { relations: [], field: 'id' } },
      descending: result.at(-1)?.descending ?? false,
    })
  }
  return result
}
