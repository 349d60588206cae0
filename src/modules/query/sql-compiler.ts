import { sql, type SQL } from 'drizzle-orm'
import { AppError } from '../../kernel/errors.ts'
import type { EntityDef, EntityRegistry, FieldType } from '../../kernel/model/index.ts'
import { instantText, textArray, wireValue } from '../../kernel/model/json.ts'
import { EXPANDED_COLLECTION_LIMIT, truncatedKey } from './query.model.ts'
import type {
  AggregateExpr,
  Aggregation,
  CompareOp,
  ExplicitJoin,
  Expr,
  RowsSelect,
  Condition,
  CustomFieldMatch,
  FieldPath,
  JoinKind,
  Projection,
  QueryAst,
  SortKey,
  Value,
} from './query.model.ts'
import { rowRestriction, type RowReader } from './row-security.ts'

/** How a statement is compiled, and for whom: the reader's sellers and viewer decide the rows it sees. */
export interface CompileOptions extends RowReader {
  /** The tenant time zone: a calendar day in a filter stands for its start there. */
  readonly timeZone: string
  /** Elements written per expanded collection (default EXPANDED_COLLECTION_LIMIT). */
  readonly collectionLimit?: number | undefined
}

const ident = (name: string) => sql.identifier(name)

function tableOf(entity: EntityDef): SQL {
  return entity.schema === 'public'
    ? sql`${ident(entity.tableName)}`
    : sql`${ident(entity.schema)}.${ident(entity.tableName)}`
}

/** A JSON key from the registry (never from a request), inlined as a literal. */
function jsonKey(name: string): SQL {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`unsafe JSON key ${name}`)
  return sql.raw(`'${name}'`)
}

/** The wire form of an expression's value, as `wireValue` writes columns (instants in UTC, dates as yyyy-MM-dd). */
function wireOf(expression: SQL, type: FieldType): SQL {
  if (type === 'instant') return instantText(expression)
  if (type === 'date') return sql`to_char(${expression}, 'YYYY-MM-DD')`
  return expression
}

// json_build_object takes at most 100 arguments: larger objects are built in chunks and merged.
function buildObject(pairs: readonly SQL[]): SQL {
  if (pairs.length <= 50) return sql`json_build_object(${sql.join([...pairs], sql`, `)})`
  const chunks: SQL[] = []
  for (let i = 0; i < pairs.length; i += 50)
    chunks.push(sql`jsonb_build_object(${sql.join(pairs.slice(i, i + 50), sql`, `)})`)
  return sql`(${sql.join(chunks, sql` || `)})::json`
}

/**
 * An instant written by a client names a millisecond, the precision of the wire format, while the database keeps
 * microseconds: the column is compared as if truncated to its millisecond, so a value read from a response and sent
 * back in a filter matches the row it came from. Written so an index on the column still serves it.
 */
function millisecondCompare(column: SQL, op: CompareOp, value: SQL): SQL {
  const next = sql`(${value} + interval '1 millisecond')`
  switch (op) {
    case '=':
      return sql`(${column} >= ${value} and ${column} < ${next})`
    case '<>':
      return sql`not (${column} >= ${value} and ${column} < ${next})`
    case '<=':
      return sql`${column} < ${next}`
    case '>':
      return sql`${column} >= ${next}`
    case '<':
    case '>=':
      return sql`${column} ${sql.raw(op)} ${value}`
  }
}

const direction = (key: { descending: boolean }) => (key.descending ? sql`desc` : sql`asc`)

interface Column {
  readonly expr: SQL
  readonly type: FieldType
}

interface Join {
  readonly alias: string
  readonly entity: EntityDef
  /** The joined table, or the rows of it the caller may see. */
  readonly source: SQL
  readonly on: SQL
  kind: JoinKind
}

/** One FROM clause: an entity under an alias, and the joins its many-to-one paths need (created on first use). */
class Scope {
  readonly entity: EntityDef
  readonly alias: string
  private readonly compiler: Compiler
  private readonly joinType: JoinKind
  private readonly joins = new Map<string, Join>()
  /** Deep queries' explicit joins, by alias, each a scope of its own; rendered after this scope's implicit joins. */
  private readonly explicit = new Map<string, { scope: Scope; clause: SQL }>()

  constructor(compiler: Compiler, entity: EntityDef, alias: string, joinType: JoinKind) {
    this.compiler = compiler
    this.entity = entity
    this.alias = alias
    this.joinType = joinType
  }

  /**
   * Adds an explicit join (root scope only): the rows of a relation of the root or of an earlier join. Rows the
   * caller may not see are never joined (the restriction is part of the join condition).
   */
  addExplicitJoin(join: ExplicitJoin): void {
    const parent = join.parent === this.alias ? this : this.explicit.get(join.parent)?.scope
    if (!parent) throw new Error(`compiler: unknown join alias ${join.parent}`)
    const relation = parent.entity.relations.get(join.relation)
    if (!relation) throw new Error(`compiler: ${parent.entity.name} has no relation ${join.relation}`)
    const target = this.compiler.registry.get(relation.target)
    const alias = join.alias
    const link =
      relation.kind === 'manyToOne'
        ? sql`${ident(alias)}.${ident(idColumn(target))} = ${ident(parent.alias)}.${ident(relation.column!)}`
        : sql`${ident(alias)}.${ident(target.relations.get(relation.mappedBy!)!.column!)} = ${ident(parent.alias)}.${ident(idColumn(parent.entity))}`
    const restriction = this.compiler.restriction(target, alias)
    const on = restriction ? sql`${link} and ${restriction}` : link
    const clause = sql` ${join.outer ? sql`left` : sql`inner`} join ${tableOf(target)} ${ident(alias)} on ${on}`
    // Relations reached from an outer join are outer too: they cannot drop the rows the join kept.
    this.explicit.set(alias, {
      scope: new Scope(this.compiler, target, alias, join.outer ? 'LEFT' : this.joinType),
      clause,
    })
  }

  /** The scope a path starts from: this one, or the explicit join it names. */
  private start(path: FieldPath): Scope {
    if (path.from === undefined || path.from === this.alias) return this
    const found = this.explicit.get(path.from)
    if (!found) throw new Error(`compiler: unknown join alias ${path.from}`)
    return found.scope
  }

  /** The entity and alias at the end of a many-to-one chain, joining what is missing. */
  reach(relations: readonly string[], leftJoin = false): { entity: EntityDef; alias: string } {
    let entity = this.entity
    let alias = this.alias
    relations.forEach((name, i) => {
      const relation = entity.relations.get(name)
      if (relation?.kind !== 'manyToOne')
        throw new Error(`compiler: ${entity.name}.${name} is not a many-to-one relation`)
      const target = this.compiler.registry.get(relation.target)
      const key = relations.slice(0, i + 1).join('.')
      let join = this.joins.get(key)
      if (!join) {
        const joined = this.compiler.alias('j')
        const on = sql`${ident(joined)}.${ident(idColumn(target))} = ${ident(alias)}.${ident(relation.column!)}`
        // Related rows the caller may not see are not joined at all: filters, sorting and grouping through them
        // cannot reveal them, whatever the join type (nested loading writes them as null the same way).
        const restriction = this.compiler.restriction(target, joined)
        const source = restriction
          ? sql`(select * from ${tableOf(target)} ${ident(joined)} where ${restriction})`
          : tableOf(target)
        join = { alias: joined, entity: target, kind: this.joinType, source, on }
        this.joins.set(key, join)
      }
      if (leftJoin) join.kind = 'LEFT'
      entity = target
      alias = join.alias
    })
    return { entity, alias }
  }

  /** A column; `outer` asks for outer joins on its path whatever the join type (see Compiler.condition). */
  column(path: FieldPath, outer = false): Column {
    const start = this.start(path)
    if (start !== this) return start.column({ ...path, from: undefined }, outer)
    const { entity, alias } = this.reach(path.relations, outer || (path.leftJoin ?? false))
    const field = entity.fields.get(path.field)
    if (field) return { expr: sql`${ident(alias)}.${ident(field.column)}`, type: field.type }
    const relation = entity.relations.get(path.field)
    if (relation?.kind === 'manyToOne') {
      const target = this.compiler.registry.get(relation.target)
      return { expr: sql`${ident(alias)}.${ident(relation.column!)}`, type: target.fields.get('id')?.type ?? 'long' }
    }
    throw new Error(`compiler: ${entity.name} has no field ${path.field}`)
  }

  /** Rendered after every condition, sort key and projection of the scope has been compiled. */
  renderJoins(): SQL {
    const rendered = [...this.joins.values()].map(
      (j) => sql` ${sql.raw(j.kind.toLowerCase())} join ${j.source} ${ident(j.alias)} on ${j.on}`,
    )
    for (const { scope, clause } of this.explicit.values()) rendered.push(clause, scope.renderJoins())
    return sql.join(rendered, sql``)
  }
}

function idColumn(entity: EntityDef): string {
  return entity.fields.get('id')?.column ?? 'id'
}

class Compiler {
  readonly registry: EntityRegistry
  private readonly options: CompileOptions
  private sequence = 0

  constructor(registry: EntityRegistry, options: CompileOptions) {
    this.registry = registry
    this.options = options
  }

  alias(prefix: string): string {
    this.sequence += 1
    return `${prefix}${this.sequence}`
  }

  /** The filter of a scope's rows: its conditions and the caller's row-level restriction. */
  where(condition: Condition, scope: Scope): SQL {
    const restriction = this.restriction(scope.entity, scope.alias)
    const compiled = this.condition(condition, scope)
    return restriction ? sql`${restriction} and ${compiled}` : compiled
  }

  /**
   * A condition's SQL. The query's join type applies to the joins of conditions ANDed at the top of the filter;
   * inside an OR set (`optional`) every join is outer, because an inner join would drop rows that another branch
   * of the OR matches (a seller without parent matching on its own code).
   */
  condition(c: Condition, scope: Scope, optional = false): SQL {
    const at = (target: FieldPath) => scope.column(target, optional)
    switch (c.kind) {
      case 'constant':
        return c.value ? sql`true` : sql`false`
      case 'and':
      case 'or':
        return sql`(${sql.join(
          c.items.map((i) => this.condition(i, scope, optional || c.kind === 'or')),
          c.kind === 'and' ? sql` and ` : sql` or `,
        )})`
      case 'not':
        if (c.item.kind === 'isNull') return sql`${at(c.item.target).expr} is not null`
        return sql`not (${this.condition(c.item, scope, optional)})`
      case 'compare': {
        const column = at(c.target)
        const value = this.param(c.value, column.type)
        if (c.ignoreCase && column.type === 'string') return sql`lower(${column.expr}) ${sql.raw(c.op)} lower(${value})`
        if (column.type === 'instant' && (c.value.kind === 'instant' || c.value.kind === 'localDateTime'))
          return millisecondCompare(column.expr, c.op, value)
        return sql`${column.expr} ${sql.raw(c.op)} ${value}`
      }
      case 'like': {
        const column = at(c.target)
        return c.ignoreCase
          ? sql`lower(${column.expr}) like lower(${c.pattern})`
          : sql`${column.expr} like ${c.pattern}`
      }
      case 'isNull':
        return sql`${at(c.target).expr} is null`
      case 'in': {
        if (c.values.length === 0) return sql`false`
        const column = at(c.target)
        const values = c.values.map((v) => this.param(v, column.type))
        if (c.ignoreCase && column.type === 'string') {
          return sql`lower(${column.expr}) in (${sql.join(
            values.map((v) => sql`lower(${v})`),
            sql`, `,
          )})`
        }
        return sql`${column.expr} in (${sql.join(values, sql`, `)})`
      }
      case 'listContains':
        return sql`${at(c.target).expr} @> ${textArray(c.values)}`
      case 'customField': {
        const { entity, alias } = scope.reach(c.relations, optional)
        const cfColumn = entity.fields.get('cfValues')?.column ?? 'cf_values'
        const v = this.alias('cf')
        const value = sql`${ident(v)}.${ident('value')}`
        // jsonb_path_query in lax mode yields nothing for a missing code or a malformed entry: never an error.
        return sql`exists (select 1 from jsonb_path_query(${ident(alias)}.${ident(cfColumn)} -> ${c.code}, 'lax $[*].value') as ${ident(v)}(${ident('value')}) where ${this.customFieldMatch(c.match, value)})`
      }
      case 'exists': {
        const owner = scope.reach(c.relations, optional)
        const relation = owner.entity.relations.get(c.collection)
        if (relation?.kind !== 'oneToMany')
          throw new Error(`compiler: ${owner.entity.name}.${c.collection} is not a collection`)
        const target = this.registry.get(relation.target)
        const back = target.relations.get(relation.mappedBy!)!
        const e = this.alias('e')
        const inner = new Scope(this, target, e, 'LEFT')
        const link = sql`${ident(e)}.${ident(back.column!)} = ${ident(owner.alias)}.${ident(idColumn(owner.entity))}`
        const where = c.where.kind === 'constant' && c.where.value ? undefined : this.condition(c.where, inner)
        const restriction = this.restriction(target, e)
        const filters = [link, ...(restriction ? [restriction] : []), ...(where ? [where] : [])]
        return sql`exists (select 1 from ${tableOf(target)} ${ident(e)}${inner.renderJoins()} where ${sql.join(filters, sql` and `)})`
      }
      case 'exprCompare': {
        const [left, right] = this.operands(c.left, c.right, scope, optional)
        if (left.type === 'instant' && c.right.kind === 'value' && c.right.value !== null)
          return millisecondCompare(left.expr, c.op, right.expr)
        return sql`${left.expr} ${sql.raw(c.op)} ${right.expr}`
      }
      case 'exprLike': {
        const [value, pattern] = this.operands(c.expr, c.pattern, scope, optional)
        return sql`${value.expr}::text like ${pattern.expr}::text`
      }
      case 'exprIn': {
        if (c.values.length === 0) return sql`false`
        const value = this.expression(c.expr, scope, undefined, optional)
        const values = c.values.map((v) => this.expression(v, scope, value.type, optional).expr)
        return sql`${value.expr} in (${sql.join(values, sql`, `)})`
      }
      case 'exprNull':
        return sql`${this.expression(c.expr, scope, undefined, optional).expr} is null`
      case 'sql':
        this.requireUnrestricted(c.key, c.entities)
        return sql`(${sql.raw(c.text)})`
      case 'inSql':
        this.requireUnrestricted(c.key, c.entities)
        return sql`${at(c.target).expr} in (${sql.raw(c.text)})`
    }
  }

  private customFieldMatch(match: CustomFieldMatch, value: SQL): SQL {
    switch (match.type) {
      case 'text':
        return match.like
          ? sql`lower(${value} #>> '{}') like lower(${match.text})`
          : sql`lower(${value} #>> '{}') = lower(${match.text})`
      case 'number':
        return sql`(case when jsonb_typeof(${value}) = 'number' then (${value} #>> '{}')::numeric = ${match.text}::numeric else false end)`
      case 'boolean':
        return sql`${value} = ${String(match.value)}::jsonb`
      case 'date':
        return sql`left(${value} #>> '{}', 10) = ${match.day}`
      case 'dateOfInstant':
        return sql`left(${value} #>> '{}', 10) = to_char(${match.iso}::timestamptz at time zone ${this.options.timeZone}, 'YYYY-MM-DD')`
      case 'entity': {
        const code = sql`lower(coalesce(${value} ->> 'code', ${value} #>> '{}')) = lower(${match.code})`
        if (!match.classNames) return code
        return sql`(${code} and (${value} ->> 'classname') in (${sql.join(
          match.classNames.map((n) => sql`${n}`),
          sql`, `,
        )}))`
      }
    }
  }

  /** A bound parameter cast to the column's type; calendar days are resolved in the tenant time zone. */
  param(value: Value, type: FieldType): SQL {
    const zone = this.options.timeZone
    switch (type) {
      case 'string':
        if (value.kind === 'text' || value.kind === 'number') return sql`${value.text}`
        break
      case 'integer':
      case 'long':
      case 'decimal':
        if (value.kind === 'number')
          return sql`${value.text}::${sql.raw(type === 'integer' ? 'integer' : type === 'long' ? 'bigint' : 'numeric')}`
        break
      case 'boolean':
        if (value.kind === 'boolean') return sql`${String(value.value)}::boolean`
        break
      case 'date':
        if (value.kind === 'day') return sql`${value.day}::date`
        if (value.kind === 'localDateTime') return sql`${value.text.slice(0, 10)}::date`
        if (value.kind === 'instant' || value.kind === 'startOfDayOf')
          return sql`(${value.iso}::timestamptz at time zone ${zone})::date`
        break
      case 'instant':
        if (value.kind === 'day') return sql`(${value.day}::timestamp at time zone ${zone})`
        if (value.kind === 'instant') return sql`${value.iso}::timestamptz`
        if (value.kind === 'localDateTime') return sql`(${value.text}::timestamp at time zone ${zone})`
        if (value.kind === 'startOfDayOf') return sql`date_trunc('day', ${value.iso}::timestamptz, ${zone})`
        break
      default:
    }
    throw new Error(`compiler: a ${value.kind} value cannot be compared with a ${type} column`)
  }

  /**
   * A raw SQL fragment's sub-selects read their tables as written: the compiler cannot give them the row restriction
   * (seller, row policy) of this caller. So a fragment may read an entity only when that restriction is empty for
   * the caller (an unrestricted one, an entity without policy); otherwise the filter is refused (403 naming the key
   * and the entity) rather than run on rows a direct query would hide.
   */
  private requireUnrestricted(key: string, entities: readonly string[]): void {
    for (const name of entities) {
      const entity = this.registry.get(name)
      // The alias is never written: only whether a restriction exists matters here.
      if (rowRestriction(this.registry, entity, 'x', this.options, () => 'x') !== undefined)
        throw new AppError(
          'FORBIDDEN',
          `The filter ${key} reads ${entity.name}, whose rows are restricted for this caller: a raw SQL fragment may read only entities whose rows it sees whole`,
        )
    }
  }

  /** The rows of `entity` the caller may see (row-security.ts: seller scoping and row policies); undefined: all. */
  restriction(entity: EntityDef, alias: string): SQL | undefined {
    return rowRestriction(this.registry, entity, alias, this.options, (hint) => this.alias(hint))
  }

  /**
   * The JSON object of one row; relations written in full become lateral subqueries appended to `laterals`.
   * A collection holds its first EXPANDED_COLLECTION_LIMIT elements by id; when it had more, the object ends with
   * `"<relation>Truncated": true` (added to the object's text, so the keys keep their order).
   */
  objectJson(entity: EntityDef, alias: string, projection: Projection, laterals: SQL[]): SQL {
    const pairs: SQL[] = []
    const cut: { name: string; lateral: string }[] = []
    for (const name of projection.fields) {
      const field = entity.fields.get(name)
      if (!field) throw new Error(`compiler: ${entity.name} has no field ${name}`)
      pairs.push(sql`${jsonKey(name)}, ${wireValue(alias, field)}`)
    }
    for (const written of projection.relations) {
      const relation = entity.relations.get(written.name)
      if (!relation) throw new Error(`compiler: ${entity.name} has no relation ${written.name}`)
      if (written.shape === 'reference' && relation.kind === 'manyToOne') {
        const key = sql`${ident(alias)}.${ident(relation.column!)}`
        pairs.push(
          sql`${jsonKey(written.name)}, case when ${key} is null then null else json_build_object('id', ${key}) end`,
        )
        continue
      }
      const target = this.registry.get(relation.target)
      const shape: Projection = written.shape === 'reference' ? { fields: ['id'], relations: [] } : written.shape
      const n = this.alias('n')
      const l = this.alias('l')
      const inner: SQL[] = []
      const json = this.objectJson(target, n, shape, inner)
      const restriction = this.restriction(target, n)
      const visible = restriction ? sql` and ${restriction}` : sql``
      const id = sql`${ident(n)}.${ident(idColumn(target))}`
      if (relation.kind === 'manyToOne') {
        laterals.push(
          sql` left join lateral (select ${json} as "j" from ${tableOf(target)} ${ident(n)}${sql.join(inner, sql``)} where ${id} = ${ident(alias)}.${ident(relation.column!)}${visible}) ${ident(l)} on true`,
        )
      } else {
        const back = target.relations.get(relation.mappedBy!)!
        // One row past the limit is read, to know whether more exist.
        const limit = this.options.collectionLimit ?? EXPANDED_COLLECTION_LIMIT
        const cap = sql.raw(String(limit))
        const first = sql`select * from ${tableOf(target)} ${ident(n)} where ${ident(n)}.${ident(back.column!)} = ${ident(alias)}.${ident(idColumn(entity))}${visible} order by ${id} limit ${sql.raw(String(limit + 1))}`
        const numbered = sql`(select *, row_number() over (order by ${id}) as "__k" from (${first}) ${ident(n)}) ${ident(n)}`
        laterals.push(
          sql` left join lateral (select coalesce(json_agg(${json} order by ${id}) filter (where ${ident(n)}."__k" <= ${cap}), '[]'::json) as "j", count(*) > ${cap} as "more" from ${numbered}${sql.join(inner, sql``)}) ${ident(l)} on true`,
        )
        cut.push({ name: written.name, lateral: l })
      }
      pairs.push(sql`${jsonKey(written.name)}, ${ident(l)}."j"`)
    }
    const object = buildObject(pairs)
    if (cut.length === 0) return object
    const more = sql.join(
      cut.map((c) => sql`${ident(c.lateral)}."more"`),
      sql` or `,
    )
    const markers = sql.join(
      cut.map(
        (c) =>
          sql`case when ${ident(c.lateral)}."more" then ${sql.raw(`',"${truncatedKey(c.name)}":true'`)} else '' end`,
      ),
      sql` || `,
    )
    return sql`(select case when ${more} then (left("o"."v"::text, -1) || ${markers} || '}')::json else "o"."v" end from (select ${object} as "v") "o")`
  }

  /** Two sides of a comparison: a literal or parameter takes the type of the other side. */
  private operands(left: Expr, right: Expr, scope: Scope, optional: boolean): [Column, Column] {
    if (left.kind === 'value' && right.kind !== 'value') {
      const r = this.expression(right, scope, undefined, optional)
      return [this.expression(left, scope, r.type, optional), r]
    }
    const l = this.expression(left, scope, undefined, optional)
    return [l, this.expression(right, scope, l.type, optional)]
  }

  /**
   * An expression's SQL and type. A value is cast to `hint`, the type of what it is compared with (text when
   * nothing says otherwise); YEAR and MONTH of an instant are taken in the tenant time zone.
   */
  expression(e: Expr, scope: Scope, hint?: FieldType, optional = false): Column {
    switch (e.kind) {
      case 'column':
        return scope.column(e.target, optional)
      case 'aggregate':
        return this.aggregate(e.expr, scope)
      case 'value': {
        const type = hint ?? 'string'
        if (e.value === null) return { expr: sql`null`, type }
        // Text is cast explicitly: as an argument of concat or coalesce PostgreSQL could not infer its type.
        const value = this.param(e.value, type)
        return { expr: type === 'string' ? sql`${value}::text` : value, type }
      }
      case 'call': {
        switch (e.fn) {
          case 'LOWER':
          case 'UPPER': {
            const arg = this.expression(e.args[0]!, scope, 'string', optional)
            return { expr: sql`${sql.raw(e.fn.toLowerCase())}(${arg.expr}::text)`, type: 'string' }
          }
          case 'CONCAT': {
            const args = e.args.map((a) => this.expression(a, scope, 'string', optional).expr)
            return { expr: sql`concat(${sql.join(args, sql`, `)})`, type: 'string' }
          }
          case 'COALESCE': {
            const typed = e.args.find((a) => a.kind !== 'value')
            const type = typed ? this.expression(typed, scope, hint, optional).type : (hint ?? 'string')
            const args = e.args.map((a) => this.expression(a, scope, type, optional).expr)
            return { expr: sql`coalesce(${sql.join(args, sql`, `)})`, type }
          }
          case 'YEAR':
          case 'MONTH': {
            const arg = this.expression(e.args[0]!, scope, 'instant', optional)
            const local = arg.type === 'instant' ? sql`(${arg.expr} at time zone ${this.options.timeZone})` : arg.expr
            return { expr: sql`extract(${sql.raw(e.fn.toLowerCase())} from ${local})::integer`, type: 'integer' }
          }
        }
      }
    }
  }

  aggregate(expr: AggregateExpr, scope: Scope): Column {
    if (!expr.arg) return { expr: sql`count(*)`, type: 'long' }
    const column = scope.column(expr.arg)
    switch (expr.fn) {
      case 'COUNT':
        return { expr: expr.distinct ? sql`count(distinct ${column.expr})` : sql`count(${column.expr})`, type: 'long' }
      case 'SUM':
        return {
          expr:
            expr.coalesce === undefined
              ? sql`sum(${column.expr})`
              : sql`coalesce(sum(${column.expr}), ${expr.coalesce}::numeric)`,
          type: 'decimal',
        }
      case 'AVG':
        return { expr: sql`avg(${column.expr})`, type: 'decimal' }
      case 'MIN':
        return { expr: sql`min(${column.expr})`, type: column.type }
      case 'MAX':
        return { expr: sql`max(${column.expr})`, type: column.type }
    }
  }
}

function sortColumns(
  compiler: Compiler,
  scope: Scope,
  orderBy: readonly SortKey[],
): { expr: SQL; name: string; descending: boolean }[] {
  return orderBy.map((key, i) => ({
    expr:
      key.by.kind === 'field'
        ? scope.column(key.by.target).expr
        : key.by.kind === 'aggregate'
          ? compiler.aggregate(key.by.expr, scope).expr
          : compiler.expression(key.by.expr, scope).expr,
    name: `__s${i + 1}`,
    descending: key.descending,
  }))
}

function orderClause(keys: readonly { expr: SQL; descending: boolean }[]): SQL {
  return keys.length === 0
    ? sql``
    : sql` order by ${sql.join(
        keys.map((k) => sql`${k.expr} ${direction(k)}`),
        sql`, `,
      )}`
}

export interface ListOptions {
  /** false for huge-volume entities without forceCount: `total` is then null. */
  readonly count: boolean
}

/**
 * One statement answering a list: `total` (text, or null when not counted) and `data`, the JSON array of the
 * page as text, built by PostgreSQL. Aggregations answer one object per group.
 */
export function compileList(registry: EntityRegistry, ast: QueryAst, options: CompileOptions & ListOptions): SQL {
  const compiler = new Compiler(registry, options)
  const entity = registry.get(ast.entity)
  const root = rootScope(compiler, entity, ast)
  if (ast.select.kind === 'aggregate')
    return compileAggregation(compiler, root, ast, ast.select.aggregation, options.count)
  if (ast.select.kind === 'rows') return compileRows(compiler, root, ast, ast.select.rows, options.count)
  const where = compiler.where(ast.where, root)
  const keys = sortColumns(compiler, root, ast.orderBy)
  const from = sql`${tableOf(entity)} "a"${root.renderJoins()}`
  const total = options.count ? sql`(select count(*) from ${from} where ${where})::text` : sql`null`
  const selected = keys.map((k) => sql`, ${k.expr} as ${ident(k.name)}`)
  const page = sql`select "a".*${sql.join(selected, sql``)} from ${from} where ${where}${orderClause(keys)} limit ${ast.limit} offset ${ast.offset}`
  const laterals: SQL[] = []
  const json = compiler.objectJson(entity, 'a', ast.select.projection, laterals)
  const outer = orderClause(keys.map((k) => ({ expr: sql`"a".${ident(k.name)}`, descending: k.descending })))
  const data = sql`(select coalesce(json_agg(${json}${outer}), '[]'::json)::text from (${page}) "a"${sql.join(laterals, sql``)})`
  return sql`select ${total} as "total", ${data} as "data"`
}

/** The root entity under `a`, with the explicit joins of a Deep query. */
function rootScope(compiler: Compiler, entity: EntityDef, ast: QueryAst): Scope {
  const root = new Scope(compiler, entity, 'a', ast.joinType)
  for (const join of ast.joins ?? []) root.addExplicitJoin(join)
  return root
}

/**
 * Rows of chosen expressions (Deep `select`): the expressions are computed in an inner query (grouped, distinct,
 * sorted and cut there), then each row becomes an object keyed by the expressions as written.
 */
function compileRows(compiler: Compiler, root: Scope, ast: QueryAst, rows: RowsSelect, count: boolean): SQL {
  const where = compiler.where(ast.where, root)
  const columns = rows.columns.map((column, i) => {
    const value = compiler.expression(column.expr, root)
    return { key: column.key, name: `c${i}`, expr: wireOf(value.expr, value.type) }
  })
  const groups = rows.groupBy.map((e) => compiler.expression(e, root).expr)
  const having = rows.having ? compiler.condition(rows.having, root) : undefined
  const keys = sortColumns(compiler, root, ast.orderBy)
  const selected = [
    ...columns.map((c) => sql`${c.expr} as ${ident(c.name)}`),
    ...keys.map((k) => sql`${k.expr} as ${ident(k.name)}`),
  ]
  const groupClause = groups.length > 0 ? sql` group by ${sql.join(groups, sql`, `)}` : sql``
  const havingClause = having ? sql` having ${having}` : sql``
  const body = sql`from ${tableOf(root.entity)} "a"${root.renderJoins()} where ${where}${groupClause}${havingClause}`
  const distinct = rows.distinct ? sql`distinct ` : sql``
  const inner = sql`select ${distinct}${sql.join(selected, sql`, `)} ${body}`
  const page = sql`${inner}${orderClause(keys)} limit ${ast.limit} offset ${ast.offset}`
  const object = sql`json_build_object(${sql.join(
    columns.map((c) => sql`${c.key}::text, "q".${ident(c.name)}`),
    sql`, `,
  )})`
  const outer = orderClause(keys.map((k) => ({ expr: sql`"q".${ident(k.name)}`, descending: k.descending })))
  const data = sql`(select coalesce(json_agg(${object}${outer}), '[]'::json)::text from (${page}) "q")`
  const total = count ? sql`(select count(*) from (${inner}) "t")::text` : sql`null`
  return sql`select ${total} as "total", ${data} as "data"`
}

function compileAggregation(
  compiler: Compiler,
  root: Scope,
  ast: QueryAst,
  aggregation: Aggregation,
  count: boolean,
): SQL {
  const entity = root.entity
  const where = compiler.where(ast.where, root)
  const groups = aggregation.groupBy.map((p) => root.column(p).expr)
  const pairs = aggregation.columns.map((column) => {
    const value = column.kind === 'field' ? root.column(column.target) : compiler.aggregate(column.expr, root)
    return sql`${column.key}::text, ${wireOf(value.expr, value.type)}`
  })
  const having = aggregation.having.map((h) => {
    const value = compiler.aggregate(h.expr, root)
    const type = value.type === 'long' ? 'decimal' : value.type
    return sql`${value.expr} ${sql.raw(h.op)} ${compiler.param(h.value, type)}`
  })
  const keys = sortColumns(compiler, root, ast.orderBy)
  const groupClause = groups.length > 0 ? sql` group by ${sql.join(groups, sql`, `)}` : sql``
  const havingClause = having.length > 0 ? sql` having ${sql.join(having, sql` and `)}` : sql``
  const body = sql`from ${tableOf(entity)} "a"${root.renderJoins()} where ${where}${groupClause}${havingClause}`
  // The groups are computed once (a materialized CTE) for both the page and the number of groups.
  // count(*) in the select makes it an aggregate query even without groupBy: one row per group, or one in all.
  const selected = keys.map((k) => sql`, ${k.expr} as ${ident(k.name)}`)
  const groupsCte = sql`with "g" as materialized (select ${buildObject(pairs)} as "j", count(*) as "__n"${sql.join(selected, sql``)} ${body})`
  const total = count ? sql`(select count(*) from "g")::text` : sql`null`
  const inner = orderClause(keys.map((k) => ({ expr: sql`"g".${ident(k.name)}`, descending: k.descending })))
  const page = sql`select * from "g"${inner} limit ${ast.limit} offset ${ast.offset}`
  const outer = orderClause(keys.map((k) => ({ expr: sql`"q".${ident(k.name)}`, descending: k.descending })))
  const data = sql`(select coalesce(json_agg("q"."j"${outer}), '[]'::json)::text from (${page}) "q")`
  return sql`${groupsCte} select ${total} as "total", ${data} as "data"`
}

/** The number of rows (or groups) a query matches. */
export function compileCount(registry: EntityRegistry, ast: QueryAst, options: CompileOptions): SQL {
  const compiler = new Compiler(registry, options)
  const entity = registry.get(ast.entity)
  const root = rootScope(compiler, entity, ast)
  if (ast.select.kind === 'rows') throw new Error('compiler: rows are counted through compileList')
  if (ast.select.kind === 'aggregate') {
    const where = compiler.where(ast.where, root)
    const groups = ast.select.aggregation.groupBy.map((p) => root.column(p).expr)
    const having = ast.select.aggregation.having.map((h) => {
      const value = compiler.aggregate(h.expr, root)
      return sql`${value.expr} ${sql.raw(h.op)} ${compiler.param(h.value, value.type === 'long' ? 'decimal' : value.type)}`
    })
    const groupClause = groups.length > 0 ? sql` group by ${sql.join(groups, sql`, `)}` : sql``
    const havingClause = having.length > 0 ? sql` having ${sql.join(having, sql` and `)}` : sql``
    return sql`select count(*)::text as "total" from (select count(*) from ${tableOf(entity)} "a"${root.renderJoins()} where ${where}${groupClause}${havingClause}) "g"`
  }
  const where = compiler.where(ast.where, root)
  return sql`select count(*)::text as "total" from ${tableOf(entity)} "a"${root.renderJoins()} where ${where}`
}

/** One entity object (or no row) as JSON text; `ast.where` selects it. */
export function compileObject(registry: EntityRegistry, ast: QueryAst, options: CompileOptions): SQL {
  if (ast.select.kind !== 'entities') throw new Error('compiler: an object query selects entities')
  const compiler = new Compiler(registry, options)
  const entity = registry.get(ast.entity)
  const root = rootScope(compiler, entity, ast)
  const where = compiler.where(ast.where, root)
  const row = sql`select "a".* from ${tableOf(entity)} "a"${root.renderJoins()} where ${where} limit 1`
  const laterals: SQL[] = []
  const json = compiler.objectJson(entity, 'a', ast.select.projection, laterals)
  return sql`select (${json})::text as "data" from (${row}) "a"${sql.join(laterals, sql``)}`
}
