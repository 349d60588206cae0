import type { EntityDef, EntityRegistry, FieldType } from '../../../kernel/model/index.ts'
import {
  combine,
  entityProjection,
  freeze,
  negate,
  ValueProblem,
  valueFor,
  type AggregateExpr,
  type Condition,
  type ExplicitJoin,
  type Expr,
  type FieldPath,
  type QueryAst,
  type SortKey,
  type Value,
} from '../../query/index.ts'
import type { HqlCondition, HqlExpr, HqlQuery, Position } from './ast.ts'
import { HqlError } from './lexer.ts'

/** The root entity of a Deep query as the Query API resolves a token (a subclass restricts to its rows). */
export interface ResolvedEntity {
  readonly entity: EntityDef
  readonly restriction: Condition | undefined
}

export interface TranslateContext {
  readonly registry: EntityRegistry
  /** Resolves an entity name (simple or full name, a subclass too); throws ENTITY_NOT_FOUND. */
  readonly resolve: (name: string) => ResolvedEntity
  /** The values of named parameters, as sent in the query string; undefined to check a text without running it. */
  readonly parameters: Readonly<Record<string, string>> | undefined
  /** Rows asked of the database: the row limit plus one, to know whether rows were cut. */
  readonly limit: number
}

const MAX_COLUMNS = 50

/** A resolved expression and its type (undefined for a value whose type comes from what it is compared with). */
interface Typed {
  readonly build: (hint: FieldType | undefined) => Expr
  readonly type: FieldType | undefined
  readonly aggregate: boolean
}

/**
 * Resolves a parsed Deep query against the registry into the shared query AST: aliases and dotted paths become
 * joins and field paths, literals and parameters take the type of what they are compared with. Every name is the
 * registry's; an unknown one is an INVALID_QUERY error at its position.
 */
export function toQueryAst(hql: HqlQuery, context: TranslateContext): { ast: QueryAst; usedParameters: Set<string> } {
  return new Translator(hql, context).translate()
}

class Translator {
  private readonly hql: HqlQuery
  private readonly context: TranslateContext
  private readonly root: ResolvedEntity
  /** Aliases written in the query → SQL alias and entity. */
  private readonly aliases = new Map<string, { sql: string; entity: EntityDef }>()
  private readonly joins: ExplicitJoin[] = []
  readonly usedParameters = new Set<string>()

  constructor(hql: HqlQuery, context: TranslateContext) {
    this.hql = hql
    this.context = context
    this.root = this.resolveEntity(hql.from.entity, hql.from.at)
    if (hql.from.alias) this.aliases.set(hql.from.alias.toLowerCase(), { sql: 'a', entity: this.root.entity })
  }

  translate(): { ast: QueryAst; usedParameters: Set<string> } {
    const hql = this.hql
    for (const join of hql.joins) this.join(join.path, join.alias, join.outer, join.at)
    const where = combine('and', [
      hql.where ? this.condition(hql.where, false) : { kind: 'constant', value: true },
      this.root.restriction ?? { kind: 'constant', value: true },
    ])
    let select: QueryAst['select']
    const columns = (hql.select ?? []).map((item) => ({ key: item.key, typed: this.expr(item.expr, true) }))
    if (columns.length > MAX_COLUMNS) throw new HqlError(`A query selects at most ${MAX_COLUMNS} expressions`)
    const groupBy = hql.groupBy.map((e) => this.expr(e, false))
    const grouped = groupBy.length > 0 || columns.some((c) => c.typed.aggregate)
    if (hql.select === undefined) {
      if (hql.groupBy.length > 0 || hql.having) throw new HqlError('group by and having need a select clause')
      select = { kind: 'entities', projection: entityProjection(this.context.registry, this.root.entity) }
    } else {
      const built = columns.map((c) => ({ key: c.key, expr: c.typed.build(undefined) }))
      if (grouped) {
        const groupExprs = groupBy.map((g) => JSON.stringify(g.build(undefined)))
        hql.select.forEach((item, i) => {
          if (!columns[i]!.typed.aggregate && !groupExprs.includes(JSON.stringify(built[i]!.expr)))
            throw new HqlError(
              `${item.key} must be listed in group by, or aggregated (line ${item.expr.at.line}, column ${item.expr.at.column})`,
              item.expr.at,
            )
        })
      }
      const having = hql.having ? this.condition(hql.having, true) : undefined
      select = {
        kind: 'rows',
        rows: { columns: built, groupBy: groupBy.map((g) => g.build(undefined)), having, distinct: hql.distinct },
      }
    }
    const orderBy: SortKey[] = hql.orderBy.map((item) => {
      // `order by cnt` names a select alias: sort by what it stands for.
      const expr = item.expr
      if (expr.kind === 'path' && expr.segments.length === 1 && select.kind === 'rows') {
        const named = (hql.select ?? []).findIndex((s) => s.key === expr.segments[0])
        if (named >= 0)
          return { by: { kind: 'expr', expr: select.rows.columns[named]!.expr }, descending: item.descending }
      }
      return { by: { kind: 'expr', expr: this.expr(expr, grouped).build(undefined) }, descending: item.descending }
    })
    const ast: QueryAst = {
      entity: this.root.entity.name,
      where,
      joinType: 'INNER',
      select,
      orderBy,
      offset: 0,
      limit: this.context.limit,
      joins: this.joins,
    }
    return { ast: freeze(ast), usedParameters: this.usedParameters }
  }

  private resolveEntity(name: string, at: Position): ResolvedEntity {
    try {
      return this.context.resolve(name)
    } catch {
      throw new HqlError(`Unknown entity '${name}' at line ${at.line}, column ${at.column}`, at)
    }
  }

  private join(path: readonly string[], alias: string | undefined, outer: boolean, at: Position): void {
    const start = this.aliases.get(path[0]!.toLowerCase())
    if (!start)
      throw new HqlError(
        `Unknown alias '${path[0]!}' at line ${at.line}, column ${at.column}: join <alias>.<relation>`,
        at,
      )
    let parent = start
    for (const name of path.slice(1)) {
      const relation = parent.entity.relations.get(name)
      const target = relation ? this.context.registry.get(relation.target) : undefined
      if (!relation || !target?.queryable)
        throw new HqlError(
          `${name} is not a relation of ${parent.entity.name} (line ${at.line}, column ${at.column})`,
          at,
        )
      const sqlAlias = `h${this.joins.length + 1}`
      this.joins.push({ alias: sqlAlias, parent: parent.sql, relation: name, outer })
      parent = { sql: sqlAlias, entity: target }
    }
    if (alias) {
      const key = alias.toLowerCase()
      if (this.aliases.has(key))
        throw new HqlError(`The alias '${alias}' is used twice (line ${at.line}, column ${at.column})`, at)
      this.aliases.set(key, parent)
    }
  }

  /** A dotted path: an alias first (or a field of the root), then many-to-one relations, then a field. */
  private path(segments: readonly string[], at: Position): { target: FieldPath; type: FieldType } {
    let start = this.aliases.get(segments[0]!.toLowerCase())
    let rest = segments.slice(1)
    if (!start) {
      start = { sql: 'a', entity: this.root.entity }
      rest = [...segments]
    }
    // An alias alone stands for its record: its id.
    if (rest.length === 0) rest = ['id']
    const where = `(line ${at.line}, column ${at.column})`
    let entity = start.entity
    const relations: string[] = []
    for (const [i, name] of rest.entries()) {
      const last = i === rest.length - 1
      const field = entity.fields.get(name)
      if (field && last) {
        if (field.type === 'json' || field.type === 'stringList')
          throw new HqlError(`${name} of ${entity.name} is not a scalar field ${where}`, at)
        return { target: this.fieldPath(start.sql, relations, name), type: field.type }
      }
      const relation = entity.relations.get(name)
      const target = relation ? this.context.registry.get(relation.target) : undefined
      if (!relation || !target?.queryable) throw new HqlError(`Unknown field '${name}' of ${entity.name} ${where}`, at)
      if (relation.kind === 'oneToMany')
        throw new HqlError(`${name} is a collection of ${entity.name}: join it (join alias.${name} x) ${where}`, at)
      if (last) {
        return {
          target: this.fieldPath(start.sql, relations, name),
          type: target.fields.get('id')?.type ?? 'long',
        }
      }
      relations.push(name)
      entity = target
    }
    throw new HqlError(`Unknown field '${segments.join('.')}' ${where}`, at)
  }

  private fieldPath(from: string, relations: readonly string[], field: string): FieldPath {
    return from === 'a' ? { relations, field } : { relations, field, from }
  }

  private expr(e: HqlExpr, allowAggregate: boolean): Typed {
    switch (e.kind) {
      case 'path': {
        const { target, type } = this.path(e.segments, e.at)
        return { build: () => ({ kind: 'column', target }), type, aggregate: false }
      }
      case 'string':
      case 'number':
      case 'boolean':
      case 'null':
      case 'parameter':
        return { build: (hint) => ({ kind: 'value', value: this.value(e, hint) }), type: undefined, aggregate: false }
      case 'call': {
        const args = e.args.map((a) => this.expr(a, allowAggregate))
        const aggregate = args.some((a) => a.aggregate)
        switch (e.fn) {
          case 'LOWER':
          case 'UPPER':
          case 'CONCAT':
            return {
              build: () => ({ kind: 'call', fn: e.fn, args: args.map((a) => a.build('string')) }),
              type: 'string',
              aggregate,
            }
          case 'YEAR':
          case 'MONTH': {
            const type = args[0]!.type
            if (type !== 'instant' && type !== 'date')
              throw new HqlError(
                `${e.fn.toLowerCase()} takes a date or an instant (line ${e.at.line}, column ${e.at.column})`,
                e.at,
              )
            return {
              build: () => ({ kind: 'call', fn: e.fn, args: args.map((a) => a.build(type)) }),
              type: 'integer',
              aggregate,
            }
          }
          case 'COALESCE': {
            const type = args.find((a) => a.type !== undefined)?.type
            return {
              build: (hint) => ({ kind: 'call', fn: 'COALESCE', args: args.map((a) => a.build(type ?? hint)) }),
              type,
              aggregate,
            }
          }
        }
        break
      }
      case 'aggregate': {
        if (!allowAggregate)
          throw new HqlError(
            `${e.fn.toLowerCase()}() is not allowed here (line ${e.at.line}, column ${e.at.column})`,
            e.at,
          )
        let arg: FieldPath | undefined
        let argType: FieldType | undefined
        if (e.arg) {
          if (e.arg.kind !== 'path')
            throw new HqlError(`${e.fn.toLowerCase()}() takes a field (line ${e.at.line}, column ${e.at.column})`, e.at)
          const resolved = this.path(e.arg.segments, e.arg.at)
          arg = resolved.target
          argType = resolved.type
        }
        if ((e.fn === 'SUM' || e.fn === 'AVG') && !['integer', 'long', 'decimal'].includes(argType ?? ''))
          throw new HqlError(
            `${e.fn.toLowerCase()}() takes a numeric field (line ${e.at.line}, column ${e.at.column})`,
            e.at,
          )
        if (e.distinct && e.fn !== 'COUNT')
          throw new HqlError(`distinct is taken by count() only (line ${e.at.line}, column ${e.at.column})`, e.at)
        const expr: AggregateExpr = { fn: e.fn, arg, coalesce: undefined, ...(e.distinct ? { distinct: true } : {}) }
        const type: FieldType =
          e.fn === 'COUNT' ? 'long' : e.fn === 'SUM' || e.fn === 'AVG' ? 'decimal' : (argType ?? 'long')
        return { build: () => ({ kind: 'aggregate', expr }), type, aggregate: true }
      }
    }
    throw new HqlError('Unsupported expression')
  }

  /** A literal or parameter as the type it is compared with (text when nothing says otherwise). */
  private value(e: HqlExpr, hint: FieldType | undefined): Value | null {
    const type: FieldType = hint === 'json' || hint === 'stringList' || hint === undefined ? 'string' : hint
    let raw: unknown
    let what: string
    switch (e.kind) {
      case 'null':
        return null
      case 'string':
        raw = e.value
        what = `'${e.value}'`
        break
      case 'number':
        // A number compared with text stays the number's digits only when the analyst means text: refused.
        raw = type === 'string' ? Number(e.text) : e.text
        what = e.text
        break
      case 'boolean':
        raw = e.value
        what = String(e.value)
        break
      case 'parameter': {
        this.usedParameters.add(e.name)
        if (this.context.parameters === undefined) return null
        const given = this.context.parameters[e.name]
        if (given === undefined)
          throw new HqlError(`The parameter :${e.name} has no value: add ${e.name}=<value> to the request`, e.at)
        try {
          return valueFor(type, given)
        } catch (error) {
          if (error instanceof ValueProblem)
            throw new HqlError(`The parameter :${e.name} does not fit: ${error.message}`, e.at)
          throw error
        }
      }
      default:
        throw new HqlError('Unsupported value')
    }
    try {
      return valueFor(type, raw)
    } catch (error) {
      if (error instanceof ValueProblem)
        throw new HqlError(`${what} at line ${e.at.line}, column ${e.at.column} does not fit: ${error.message}`, e.at)
      throw error
    }
  }

  private condition(c: HqlCondition, allowAggregate: boolean): Condition {
    switch (c.kind) {
      case 'and':
      case 'or':
        return combine(
          c.kind,
          c.items.map((i) => this.condition(i, allowAggregate)),
        )
      case 'not':
        return negate(this.condition(c.item, allowAggregate))
      case 'compare': {
        const [left, right] = this.pair(c.left, c.right, allowAggregate)
        return { kind: 'exprCompare', left, op: c.op, right }
      }
      case 'like': {
        const expr = this.expr(c.expr, allowAggregate)
        const pattern = this.expr(c.pattern, allowAggregate)
        const like: Condition = { kind: 'exprLike', expr: expr.build('string'), pattern: pattern.build('string') }
        return c.negated ? negate(like) : like
      }
      case 'in': {
        const expr = this.expr(c.expr, allowAggregate)
        const values = c.values.map((v) => this.expr(v, allowAggregate).build(expr.type))
        const found: Condition = { kind: 'exprIn', expr: expr.build(undefined), values }
        return c.negated ? negate(found) : found
      }
      case 'between': {
        const [low, expr] = this.pair(c.low, c.expr, allowAggregate)
        const [, high] = this.pair(c.expr, c.high, allowAggregate)
        const between = combine('and', [
          { kind: 'exprCompare', left: expr, op: '>=', right: low },
          { kind: 'exprCompare', left: expr, op: '<=', right: high },
        ])
        return c.negated ? negate(between) : between
      }
      case 'isNull': {
        const isNull: Condition = { kind: 'exprNull', expr: this.expr(c.expr, allowAggregate).build(undefined) }
        return c.negated ? negate(isNull) : isNull
      }
    }
  }

  /** Both sides of a comparison, each value typed by the other side. */
  private pair(left: HqlExpr, right: HqlExpr, allowAggregate: boolean): [Expr, Expr] {
    const l = this.expr(left, allowAggregate)
    const r = this.expr(right, allowAggregate)
    return [l.build(r.type), r.build(l.type)]
  }
}
