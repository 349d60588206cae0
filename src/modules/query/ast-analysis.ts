import type { EntityDef, EntityRegistry } from '../../kernel/model/index.ts'
import type { AggregateExpr, Condition, Expr, FieldPath, Projection, QueryAst } from './query.model.ts'

/**
 * The entities a query reads besides its root: every relation crossed by a filter, a sort key, a grouping or an
 * aggregate, and every relation written in full by the projection. A many-to-one written as `{ "id": n }` reads only
 * the root's own foreign key, so it reaches nothing. The caller needs the view role of each (or queryUser).
 */
export function entitiesReached(registry: EntityRegistry, ast: QueryAst): EntityDef[] {
  const reached = new Map<string, EntityDef>()
  const root = registry.get(ast.entity)
  const add = (entity: EntityDef) => {
    if (entity.name !== root.name) reached.set(entity.name, entity)
  }
  /** Follows many-to-one relation names from an entity; returns the entity at the end. */
  const follow = (from: EntityDef, relations: readonly string[]): EntityDef => {
    let current = from
    for (const name of relations) {
      const relation = current.relations.get(name)
      if (!relation) throw new Error(`analysis: ${current.name} has no relation ${name}`)
      current = registry.get(relation.target)
      add(current)
    }
    return current
  }
  const path = (from: EntityDef, target: FieldPath) =>
    follow(target.from === undefined ? from : startOf(target), target.relations)
  // The entity each explicit join (Deep queries) starts at, by alias.
  const joined = new Map<string, EntityDef>([['a', root]])
  for (const join of ast.joins ?? []) {
    const parent = joined.get(join.parent)
    const relation = parent?.relations.get(join.relation)
    if (!parent || !relation) throw new Error(`analysis: unknown join ${join.parent}.${join.relation}`)
    const target = registry.get(relation.target)
    add(target)
    joined.set(join.alias, target)
  }
  const startOf = (target: FieldPath) => {
    const start = joined.get(target.from ?? 'a')
    if (!start) throw new Error(`analysis: unknown join alias ${target.from ?? ''}`)
    return start
  }
  const aggregate = (from: EntityDef, expr: AggregateExpr) => {
    if (expr.arg) path(from, expr.arg)
  }
  const expression = (e: Expr): void => {
    if (e.kind === 'column') path(root, e.target)
    else if (e.kind === 'aggregate') aggregate(root, e.expr)
    else if (e.kind === 'call') for (const arg of e.args) expression(arg)
  }
  const condition = (from: EntityDef, c: Condition): void => {
    switch (c.kind) {
      case 'and':
      case 'or':
        for (const item of c.items) condition(from, item)
        return
      case 'not':
        condition(from, c.item)
        return
      case 'compare':
      case 'like':
      case 'isNull':
      case 'in':
      case 'listContains':
        path(from, c.target)
        return
      case 'inSql':
        path(from, c.target)
        for (const name of c.entities) add(registry.get(name))
        return
      case 'sql':
        // A fragment's sub-selects read whole tables: each one is reached, the root's own included.
        for (const name of c.entities) add(registry.get(name))
        return
      case 'customField':
        follow(from, c.relations)
        return
      case 'exists': {
        const owner = follow(from, c.relations)
        const relation = owner.relations.get(c.collection)
        if (!relation) throw new Error(`analysis: ${owner.name} has no collection ${c.collection}`)
        const target = registry.get(relation.target)
        add(target)
        condition(target, c.where)
        return
      }
      case 'exprCompare':
        expression(c.left)
        expression(c.right)
        return
      case 'exprLike':
        expression(c.expr)
        expression(c.pattern)
        return
      case 'exprIn':
        expression(c.expr)
        for (const v of c.values) expression(v)
        return
      case 'exprNull':
        expression(c.expr)
        return
      case 'constant':
        return
    }
  }
  const projection = (from: EntityDef, p: Projection): void => {
    for (const written of p.relations) {
      if (written.shape === 'reference') {
        const relation = from.relations.get(written.name)
        // A collection written as references still reads its rows (their ids).
        if (relation?.kind === 'oneToMany') add(registry.get(relation.target))
        continue
      }
      const relation = from.relations.get(written.name)
      if (!relation) throw new Error(`analysis: ${from.name} has no relation ${written.name}`)
      const target = registry.get(relation.target)
      add(target)
      projection(target, written.shape)
    }
  }

  condition(root, ast.where)
  for (const key of ast.orderBy) {
    if (key.by.kind === 'field') path(root, key.by.target)
    else if (key.by.kind === 'aggregate') aggregate(root, key.by.expr)
    else expression(key.by.expr)
  }
  if (ast.select.kind === 'entities') projection(root, ast.select.projection)
  else if (ast.select.kind === 'rows') {
    for (const column of ast.select.rows.columns) expression(column.expr)
    for (const group of ast.select.rows.groupBy) expression(group)
    if (ast.select.rows.having) condition(root, ast.select.rows.having)
  } else {
    const aggregation = ast.select.aggregation
    for (const column of aggregation.columns) {
      if (column.kind === 'field') path(root, column.target)
      else aggregate(root, column.expr)
    }
    for (const group of aggregation.groupBy) path(root, group)
    for (const having of aggregation.having) aggregate(root, having.expr)
  }
  return [...reached.values()]
}

/**
 * The most objects one root row can expand into through its projection: itself, one per many-to-one written in
 * full, and `collectionLimit` per element of a collection written in full (collections are cut there). A page
 * holds at most `limit` root rows, so `limit × weight` bounds the objects a response can hold.
 */
export function expansionWeight(
  registry: EntityRegistry,
  entity: EntityDef,
  projection: Projection,
  collectionLimit: number,
): number {
  let weight = 1
  for (const written of projection.relations) {
    const relation = entity.relations.get(written.name)
    if (!relation) throw new Error(`analysis: ${entity.name} has no relation ${written.name}`)
    const many = relation.kind === 'oneToMany'
    if (written.shape === 'reference') {
      if (many) weight += collectionLimit
      continue
    }
    const child = expansionWeight(registry, registry.get(relation.target), written.shape, collectionLimit)
    weight += many ? collectionLimit * child : child
    // Past any budget already: stop before the product overflows.
    if (weight > Number.MAX_SAFE_INTEGER / 1e6) return weight
  }
  return weight
}
