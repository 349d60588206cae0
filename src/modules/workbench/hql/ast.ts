/**
 * The Deep query as the analyst wrote it: names are still text (aliases, dotted paths), positions kept for errors.
 * `to-query.ts` resolves it against the registry into the shared query AST; nothing here reaches SQL.
 */

export interface Position {
  readonly line: number
  readonly column: number
}

export type HqlFunction = 'LOWER' | 'UPPER' | 'COALESCE' | 'CONCAT' | 'YEAR' | 'MONTH'
export type HqlAggregate = 'COUNT' | 'SUM' | 'AVG' | 'MIN' | 'MAX'
export type HqlCompare = '=' | '<>' | '<' | '<=' | '>' | '>='

export type HqlExpr =
  /** `c.seller.code`, `c`, `code`: the first segment may be an alias. */
  | { readonly kind: 'path'; readonly segments: readonly string[]; readonly at: Position }
  | { readonly kind: 'string'; readonly value: string; readonly at: Position }
  | { readonly kind: 'number'; readonly text: string; readonly at: Position }
  | { readonly kind: 'boolean'; readonly value: boolean; readonly at: Position }
  | { readonly kind: 'null'; readonly at: Position }
  | { readonly kind: 'parameter'; readonly name: string; readonly at: Position }
  | { readonly kind: 'call'; readonly fn: HqlFunction; readonly args: readonly HqlExpr[]; readonly at: Position }
  | {
      readonly kind: 'aggregate'
      readonly fn: HqlAggregate
      /** undefined: `count(*)`. */
      readonly arg: HqlExpr | undefined
      readonly distinct: boolean
      readonly at: Position
    }

export type HqlCondition =
  | { readonly kind: 'and' | 'or'; readonly items: readonly HqlCondition[] }
  | { readonly kind: 'not'; readonly item: HqlCondition }
  | { readonly kind: 'compare'; readonly left: HqlExpr; readonly op: HqlCompare; readonly right: HqlExpr }
  | { readonly kind: 'like'; readonly expr: HqlExpr; readonly pattern: HqlExpr; readonly negated: boolean }
  | { readonly kind: 'in'; readonly expr: HqlExpr; readonly values: readonly HqlExpr[]; readonly negated: boolean }
  | {
      readonly kind: 'between'
      readonly expr: HqlExpr
      readonly low: HqlExpr
      readonly high: HqlExpr
      readonly negated: boolean
    }
  | { readonly kind: 'isNull'; readonly expr: HqlExpr; readonly negated: boolean }

export interface HqlSelectItem {
  readonly expr: HqlExpr
  /** The key of the column in each row: the alias, else the expression as written. */
  readonly key: string
}

export interface HqlJoin {
  readonly outer: boolean
  /** `alias.relation[.relation…]` */
  readonly path: readonly string[]
  readonly alias: string | undefined
  readonly at: Position
}

export interface HqlQuery {
  readonly select: readonly HqlSelectItem[] | undefined
  readonly distinct: boolean
  readonly from: { readonly entity: string; readonly alias: string | undefined; readonly at: Position }
  readonly joins: readonly HqlJoin[]
  readonly where: HqlCondition | undefined
  readonly groupBy: readonly HqlExpr[]
  readonly having: HqlCondition | undefined
  readonly orderBy: readonly { readonly expr: HqlExpr; readonly descending: boolean }[]
}
