import { sql, type SQL } from 'drizzle-orm'
import type { EntityDef, EntityRegistry, FieldType, Viewer } from '../../kernel/model/index.ts'
import { textArray, wireValue } from '../../kernel/model/json.ts'
import { sellerRestriction } from '../../kernel/model/row-security.ts'
import type {
  AggregateExpr,
  Aggregation,
  Condition,
  CustomFieldMatch,
  FieldPath,
  JoinKind,
  Projection,
  QueryAst,
  SortKey,
  Value,
} from './query.model.ts'

export interface CompileOptions {
  /** The tenant time zone: a calendar day in a filter stands for its start there. */
  readonly timeZone: string
  /** Row-level security (DECISIONS "General"): the seller codes the caller may see; null when unrestricted. */
  readonly sellerCodes: readonly string[] | null
  /** The caller, for entities that declare a row policy (saved queries' visibility). */
  readonly viewer?: Viewer | undefined
  /** Set when a row policy read the viewer: the statement is then the viewer's own. */
  readonly trace?: { viewerUsed: boolean } | undefined
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
  if (type === 'instant') return sql`to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
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

  constructor(compiler: Compiler, entity: EntityDef, alias: string, joinType: JoinKind) {
    this.compiler = compiler
    this.entity = entity
    this.alias = alias
    this.joinType = joinType
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

  column(path: FieldPath): Column {
    const { entity, alias } = this.reach(path.relations, path.leftJoin ?? false)
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

  condition(c: Condition, scope: Scope): SQL {
    switch (c.kind) {
      case 'constant':
        return c.value ? sql`true` : sql`false`
      case 'and':
      case 'or':
        return sql`(${sql.join(
          c.items.map((i) => this.condition(i, scope)),
          c.kind === 'and' ? sql` and ` : sql` or `,
        )})`
      case 'not':
        if (c.item.kind === 'isNull') return sql`${scope.column(c.item.target).expr} is not null`
        return sql`not (${this.condition(c.item, scope)})`
      case 'compare': {
        const column = scope.column(c.target)
        const value = this.param(c.value, column.type)
        if (c.ignoreCase && column.type === 'string') return sql`lower(${column.expr}) ${sql.raw(c.op)} lower(${value})`
        return sql`${column.expr} ${sql.raw(c.op)} ${value}`
      }
      case 'like': {
        const column = scope.column(c.target)
        return c.ignoreCase
          ? sql`lower(${column.expr}) like lower(${c.pattern})`
          : sql`${column.expr} like ${c.pattern}`
      }
      case 'isNull':
        return sql`${scope.column(c.target).expr} is null`
      case 'in': {
        if (c.values.length === 0) return sql`false`
        const column = scope.column(c.target)
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
        return sql`${scope.column(c.target).expr} @> ${textArray(c.values)}`
      case 'customField': {
        const { entity, alias } = scope.reach(c.relations)
        const column = entity.fields.get('cfValues')?.column ?? 'cf_values'
        const v = this.alias('cf')
        const value = sql`${ident(v)}.${ident('value')}`
        // jsonb_path_query in lax mode yields nothing for a missing code or a malformed entry: never an error.
        return sql`exists (select 1 from jsonb_path_query(${ident(alias)}.${ident(column)} -> ${c.code}, 'lax $[*].value') as ${ident(v)}(${ident('value')}) where ${this.customFieldMatch(c.match, value)})`
      }
      case 'exists': {
        const owner = scope.reach(c.relations)
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
      case 'sql':
        return sql`(${sql.raw(c.text)})`
      case 'inSql':
        return sql`${scope.column(c.target).expr} in (${sql.raw(c.text)})`
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
        const code = sql`coalesce(${value} ->> 'code', ${value} #>> '{}') = ${match.code}`
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

  /** Row-level security: a business entity's rows are visible when its seller path ends at one of the caller's sellers. */
  restriction(entity: EntityDef, alias: string): SQL | undefined {
    const viewer = this.options.viewer
    if (entity.rowPolicy && viewer && this.options.trace) this.options.trace.viewerUsed = true
    const policy = entity.rowPolicy && viewer ? entity.rowPolicy(sql`${ident(alias)}`, viewer) : undefined
    const sellers = sellerRestriction(this.registry, entity, alias, this.options.sellerCodes, (hint) =>
      this.alias(hint),
    )
    if (!sellers) return policy
    return policy ? sql`(${sellers} and ${policy})` : sellers
  }

  /** The JSON object of one row; relations written in full become lateral subqueries appended to `laterals`. */
  objectJson(entity: EntityDef, alias: string, projection: Projection, laterals: SQL[]): SQL {
    const pairs: SQL[] = []
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
        laterals.push(
          sql` left join lateral (select coalesce(json_agg(${json} order by ${id}), '[]'::json) as "j" from ${tableOf(target)} ${ident(n)}${sql.join(inner, sql``)} where ${ident(n)}.${ident(back.column!)} = ${ident(alias)}.${ident(idColumn(entity))}${visible}) ${ident(l)} on true`,
        )
      }
      pairs.push(sql`${jsonKey(written.name)}, ${ident(l)}."j"`)
    }
    return buildObject(pairs)
  }

  aggregate(expr: AggregateExpr, scope: Scope): Column {
    if (!expr.arg) return { expr: sql`count(*)`, type: 'long' }
    const column = scope.column(expr.arg)
    switch (expr.fn) {
      case 'COUNT':
        return { expr: sql`count(${column.expr})`, type: 'long' }
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
    expr: key.by.kind === 'field' ? scope.column(key.by.target).expr : compiler.aggregate(key.by.expr, scope).expr,
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
  const root = new Scope(compiler, entity, 'a', ast.joinType)
  if (ast.select.kind === 'aggregate')
    return compileAggregation(compiler, root, ast, ast.select.aggregation, options.count)
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
  const root = new Scope(compiler, entity, 'a', ast.joinType)
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
  const root = new Scope(compiler, entity, 'a', ast.joinType)
  const where = compiler.where(ast.where, root)
  const row = sql`select "a".* from ${tableOf(entity)} "a"${root.renderJoins()} where ${where} limit 1`
  const laterals: SQL[] = []
  const json = compiler.objectJson(entity, 'a', ast.select.projection, laterals)
  return sql`select (${json})::text as "data" from (${row}) "a"${sql.join(laterals, sql``)}`
}
