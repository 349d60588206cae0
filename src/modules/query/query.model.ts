/**
 * The query AST shared by the Query API, saved report queries and the Deep (HQL) workbench. It names entities,
 * relations and fields by their registry names only; the parsers validate every name against the registry and
 * the compiler turns the tree into one parameterized statement. Nothing here knows about HTTP.
 *
 * Trees are deeply frozen when built (`freeze`), so a compiled query can be cached or shared safely.
 */

export type JoinKind = 'INNER' | 'LEFT' | 'RIGHT'
export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>='
export type AggregateFn = 'SUM' | 'COUNT' | 'AVG' | 'MIN' | 'MAX'

/**
 * A column reached from a scope's entity: zero or more many-to-one relations, then a field of the last entity or
 * the name of one of its many-to-one relations (standing for the foreign key). `leftJoin` asks for an outer join
 * whatever the query's join type (anyMatch).
 */
export interface FieldPath {
  readonly relations: readonly string[]
  readonly field: string
  readonly leftJoin?: boolean
  /** The explicit join (`QueryAst.joins`) the path starts from; the root entity when absent. */
  readonly from?: string
}

/**
 * A value compared with a column. Numbers are decimal text (never a double); temporal values keep what the client
 * wrote: a calendar day (`day`, standing for its start in the tenant time zone on instant columns), an exact
 * instant, a wall-clock time in the tenant zone, or the start of the tenant-zone day holding an instant.
 */
export type Value =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'day'; readonly day: string }
  | { readonly kind: 'instant'; readonly iso: string }
  | { readonly kind: 'localDateTime'; readonly text: string }
  | { readonly kind: 'startOfDayOf'; readonly iso: string }

/** How a custom field value (`cfValues.<code>[*].value`) is matched, by the template's declared type. */
export type CustomFieldMatch =
  | { readonly type: 'text'; readonly text: string; readonly like: boolean }
  | { readonly type: 'number'; readonly text: string }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'date'; readonly day: string }
  /** An instant: matched by its calendar day in the tenant time zone (known when compiling). */
  | { readonly type: 'dateOfInstant'; readonly iso: string }
  | { readonly type: 'entity'; readonly code: string; readonly classNames: readonly string[] | undefined }

export type Condition =
  | { readonly kind: 'and' | 'or'; readonly items: readonly Condition[] }
  | { readonly kind: 'not'; readonly item: Condition }
  | { readonly kind: 'constant'; readonly value: boolean }
  /** `ignoreCase` compares text case-insensitively (`lower(x) = lower(v)`). */
  | {
      readonly kind: 'compare'
      readonly target: FieldPath
      readonly op: CompareOp
      readonly value: Value
      readonly ignoreCase: boolean
    }
  /** A LIKE pattern with `%` and `_` as wildcards and `\` as escape, matched case-insensitively when asked. */
  | { readonly kind: 'like'; readonly target: FieldPath; readonly pattern: string; readonly ignoreCase: boolean }
  | { readonly kind: 'isNull'; readonly target: FieldPath }
  | { readonly kind: 'in'; readonly target: FieldPath; readonly values: readonly Value[]; readonly ignoreCase: boolean }
  /** Every value is an element of a list-valued column. */
  | { readonly kind: 'listContains'; readonly target: FieldPath; readonly values: readonly string[] }
  | {
      readonly kind: 'customField'
      readonly relations: readonly string[]
      readonly code: string
      readonly match: CustomFieldMatch
    }
  /** Some element of a one-to-many collection (reached through `relations`) satisfies `where`. */
  | {
      readonly kind: 'exists'
      readonly relations: readonly string[]
      readonly collection: string
      readonly where: Condition
    }
  /** Comparisons of expressions (Deep queries: functions, two columns, aggregates in `having`). */
  | { readonly kind: 'exprCompare'; readonly left: Expr; readonly op: CompareOp; readonly right: Expr }
  | { readonly kind: 'exprLike'; readonly expr: Expr; readonly pattern: Expr }
  | { readonly kind: 'exprIn'; readonly expr: Expr; readonly values: readonly Expr[] }
  | { readonly kind: 'exprNull'; readonly expr: Expr }
  /**
   * Raw SQL, vetted by `raw-sql.ts`, allowed to queryExpert holders only; the root entity's alias is `a`. `key` is the
   * filter key that carried it, `entities` the entities its sub-selects read (the caller needs the right to read each,
   * and none may hide rows from the caller: the fragment's text cannot be given their row restriction).
   */
  | { readonly kind: 'sql'; readonly key: string; readonly text: string; readonly entities: readonly string[] }
  | {
      readonly kind: 'inSql'
      readonly key: string
      readonly target: FieldPath
      readonly text: string
      readonly entities: readonly string[]
    }

/**
 * A collection (one-to-many) written in a response holds at most this many elements, the first by id; when more
 * exist, the object holding it also carries `"<relation>Truncated": true`. A request expanding collections inside
 * collections gets a lower limit (down to the last of EXPANDED_COLLECTION_LIMITS) so its page stays within budget.
 */
export const EXPANDED_COLLECTION_LIMIT = 100
export const EXPANDED_COLLECTION_LIMITS = [100, 50, 20, 10] as const

/** The key marking a collection cut at EXPANDED_COLLECTION_LIMIT. */
export const truncatedKey = (relation: string) => `${relation}Truncated`

/** Which fields and relations of an entity are written, and how deep. */
export interface Projection {
  readonly fields: readonly string[]
  readonly relations: readonly RelationProjection[]
}

/** A many-to-one written as `{ "id": n }` (`reference`), or any relation written with its own projection. */
export interface RelationProjection {
  readonly name: string
  readonly shape: 'reference' | Projection
}

export interface AggregateExpr {
  readonly fn: AggregateFn
  /** undefined: `COUNT(*)`. */
  readonly arg: FieldPath | undefined
  /** `COALESCE(SUM(x), <coalesce>)`: the decimal text used when the sum is null. */
  readonly coalesce: string | undefined
  /** `COUNT(DISTINCT x)`. */
  readonly distinct?: boolean
}

/** Functions of an expression (Deep queries): text case, the first non-null value, text concatenation, date parts. */
export type ScalarFn = 'LOWER' | 'UPPER' | 'COALESCE' | 'CONCAT' | 'YEAR' | 'MONTH'

/** A value computed per row (or per group, with aggregates): what Deep queries select, compare and sort by. */
export type Expr =
  | { readonly kind: 'column'; readonly target: FieldPath }
  /** A literal or parameter, already converted to the type it is compared with; null is SQL NULL. */
  | { readonly kind: 'value'; readonly value: Value | null }
  | { readonly kind: 'call'; readonly fn: ScalarFn; readonly args: readonly Expr[] }
  | { readonly kind: 'aggregate'; readonly expr: AggregateExpr }

/**
 * A join written in a Deep query: the rows of a relation (many-to-one or one-to-many) of the root or of another
 * join, under its own alias. A one-to-many join gives one row per element, as in HQL.
 */
export interface ExplicitJoin {
  /** SQL alias, referred to by `FieldPath.from`. */
  readonly alias: string
  /** The alias it starts from: the root (`a`) or an earlier join. */
  readonly parent: string
  readonly relation: string
  readonly outer: boolean
}

export type OutputColumn =
  | { readonly key: string; readonly kind: 'field'; readonly target: FieldPath }
  | { readonly key: string; readonly kind: 'aggregate'; readonly expr: AggregateExpr }

export interface HavingCondition {
  readonly expr: AggregateExpr
  readonly op: CompareOp
  readonly value: Value
}

export interface Aggregation {
  /** Written in this order, keyed by the expressions as the client wrote them. */
  readonly columns: readonly OutputColumn[]
  readonly groupBy: readonly FieldPath[]
  readonly having: readonly HavingCondition[]
}

export type SortTarget =
  | { readonly kind: 'field'; readonly target: FieldPath }
  | { readonly kind: 'aggregate'; readonly expr: AggregateExpr }
  | { readonly kind: 'expr'; readonly expr: Expr }

/** Rows of chosen expressions (Deep `select`), keyed as written, grouped when there is a `group by`. */
export interface RowsSelect {
  readonly columns: readonly { readonly key: string; readonly expr: Expr }[]
  readonly groupBy: readonly Expr[]
  readonly having: Condition | undefined
  readonly distinct: boolean
}

export interface SortKey {
  readonly by: SortTarget
  readonly descending: boolean
}

export interface QueryAst {
  /** Registry simple name of the root entity; its alias in SQL is `a`. */
  readonly entity: string
  readonly where: Condition
  /** Join used for many-to-one paths of filters, sorting and grouping. */
  readonly joinType: JoinKind
  readonly select:
    | { readonly kind: 'entities'; readonly projection: Projection }
    | { readonly kind: 'aggregate'; readonly aggregation: Aggregation }
    | { readonly kind: 'rows'; readonly rows: RowsSelect }
  /** Deep queries' explicit joins, in order; the Query API never has any. */
  readonly joins?: readonly ExplicitJoin[]
  readonly orderBy: readonly SortKey[]
  readonly offset: number
  readonly limit: number
}

export const TRUE: Condition = { kind: 'constant', value: true }

/** Combines conditions, dropping neutral elements, so simple filters compile to simple SQL. */
export function combine(kind: 'and' | 'or', items: readonly Condition[]): Condition {
  const neutral = kind === 'and'
  const kept: Condition[] = []
  for (const item of items) {
    if (item.kind === 'constant') {
      if (item.value === neutral) continue
      return item
    }
    if (item.kind === kind) kept.push(...item.items)
    else kept.push(item)
  }
  if (kept.length === 0) return { kind: 'constant', value: neutral }
  if (kept.length === 1) return kept[0]!
  return { kind, items: kept }
}

export function negate(item: Condition): Condition {
  if (item.kind === 'constant') return { kind: 'constant', value: !item.value }
  if (item.kind === 'not') return item.item
  return { kind: 'not', item }
}

export function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) freeze(child)
  }
  return value
}
