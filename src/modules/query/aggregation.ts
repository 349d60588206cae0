import type { EntityDef, EntityRegistry, FieldType } from '../../kernel/model/index.ts'
import { decimalText, ValueProblem, valueFor } from './filter-values.ts'
import {
  type AggregateExpr,
  type AggregateFn,
  type Aggregation,
  type CompareOp,
  type FieldPath,
  type HavingCondition,
  type OutputColumn,
  type SortKey,
  type SortTarget,
  type Value,
} from './query.model.ts'
import { parameterError } from './parameter-error.ts'
import { columnPath, directions } from './projection.ts'

const AGGREGATE_START = /^\s*(SUM|COUNT|AVG|MAX|MIN|COALESCE)\s*\(/i

/** The text is an aggregate expression (`SUM(x)`, `COUNT(*)`…): the request answers groups, not entities. */
export const isAggregateExpression = (text: string) => AGGREGATE_START.test(text)

/*
 * Aggregate requests: `SUM(x)`, `COUNT(*)` and the like in fields, groupBy, having, and their order. A request with
 * an aggregate or a groupBy answers one row per group instead of entities.
 */

const pathKey = (p: FieldPath) => [...p.relations, p.field].join('.')

/** `SUM(x)`, `COUNT(x)`, `COUNT(*)`, `AVG(x)`, `MIN(x)`, `MAX(x)`, `COALESCE(SUM(x), n)`; keywords in any case. */
export function parseAggregate(
  registry: EntityRegistry,
  entity: EntityDef,
  parameter: string,
  text: string,
): { expr: AggregateExpr; type: FieldType } {
  const coalesce =
    /^\s*COALESCE\s*\(\s*SUM\s*\(\s*([A-Za-z0-9_.]+)\s*\)\s*,\s*([-+]?[0-9]+(?:\.[0-9]+)?)\s*\)\s*$/i.exec(text)
  const simple = /^\s*(SUM|COUNT|AVG|MAX|MIN)\s*\(\s*(\*|[A-Za-z0-9_.]+)\s*\)\s*$/i.exec(text)
  if (!coalesce && !simple) {
    throw parameterError(
      parameter,
      `${text} is not an aggregation; expected SUM(f), COUNT(f), COUNT(*), AVG(f), MIN(f), MAX(f) or COALESCE(SUM(f), n)`,
    )
  }
  const fn = (coalesce ? 'SUM' : simple![1]!.toUpperCase()) as AggregateFn
  const argText = coalesce ? coalesce[1]! : simple![2]!
  if (argText === '*') {
    if (fn !== 'COUNT') throw parameterError(parameter, `${text}: only COUNT takes *`)
    return { expr: { fn, arg: undefined, coalesce: undefined }, type: 'long' }
  }
  const { target, type } = columnPath(registry, entity, parameter, argText, fn === 'COUNT')
  if ((fn === 'SUM' || fn === 'AVG') && !['integer', 'long', 'decimal'].includes(type)) {
    throw parameterError(parameter, `${text}: ${argText} is not numeric`)
  }
  if ((fn === 'MIN' || fn === 'MAX') && type === 'boolean')
    throw parameterError(parameter, `${text}: ${argText} is a boolean`)
  const resultType: FieldType = fn === 'COUNT' ? 'long' : fn === 'SUM' || fn === 'AVG' ? 'decimal' : type
  return { expr: { fn, arg: target, coalesce: coalesce ? decimalText(coalesce[2]!) : undefined }, type: resultType }
}

export function buildAggregation(
  registry: EntityRegistry,
  entity: EntityDef,
  parameter: string,
  fields: readonly string[],
  groupBy: readonly string[],
  having: readonly string[],
  excluding: readonly string[],
): Aggregation {
  const groups = groupBy.map((path) => columnPath(registry, entity, 'groupBy', path, true).target)
  const grouped = new Set(groups.map(pathKey))
  const columns: OutputColumn[] = []
  const seen = new Set<string>()
  for (const entry of fields) {
    if (seen.has(entry)) continue
    seen.add(entry)
    if (isAggregateExpression(entry)) {
      columns.push({ key: entry, kind: 'aggregate', expr: parseAggregate(registry, entity, parameter, entry).expr })
      continue
    }
    const { target } = columnPath(registry, entity, parameter, entry, true)
    if (!grouped.has(pathKey(target)))
      throw parameterError(parameter, `${entry} must be listed in groupBy, or aggregated`)
    columns.push({ key: entry, kind: 'field', target })
  }
  if (columns.length === 0) {
    for (const [i, target] of groups.entries()) columns.push({ key: groupBy[i]!, kind: 'field', target })
  }
  if (columns.length > 50) throw parameterError(parameter, 'expected at most 50 fields in an aggregation')
  const kept = columns.filter((c) => !excluding.includes(c.key))
  return { columns: kept, groupBy: groups, having: having.map((h) => parseHaving(registry, entity, h)) }
}

/** A having condition: `<AGG>(<field>) <op> <value>`, op in = != <> < <= > >=, value a number or a quoted string. */
function parseHaving(registry: EntityRegistry, entity: EntityDef, text: string): HavingCondition {
  const open = text.indexOf('(')
  let depth = 0
  let close = -1
  for (let i = Math.max(open, 0); i < text.length; i++) {
    if (text[i] === '(') depth++
    if (text[i] === ')' && --depth === 0) {
      close = i
      break
    }
  }
  const tail = close < 0 ? undefined : /^\s*(<=|>=|<>|!=|=|<|>)\s*(.+?)\s*$/.exec(text.slice(close + 1))
  if (open < 0 || !tail)
    throw parameterError('having', `${text}: expected <AGG>(<field>) <op> <value>, e.g. SUM(amount) > 100`)
  const { expr, type } = parseAggregate(registry, entity, 'having', text.slice(0, close + 1))
  const op = (tail[1] === '!=' ? '<>' : tail[1]) as CompareOp
  const literal = tail[2]!
  const quoted = /^'(.*)'$|^"(.*)"$/.exec(literal)
  let value: Value
  try {
    if (quoted) value = valueFor(type, quoted[1] ?? quoted[2] ?? '')
    else if (/^[-+]?\d+(\.\d+)?$/.test(literal)) value = valueFor(type === 'long' ? 'decimal' : type, literal)
    else throw new ValueProblem('expected a number or a quoted string')
  } catch (error) {
    if (error instanceof ValueProblem) throw parameterError('having', `${text}: ${error.message}`)
    throw error
  }
  return { expr, op, value }
}

/** Aggregation rows sort by sortBy (a grouped field or an aggregation), else by the grouping fields. */
export function aggregateOrder(
  registry: EntityRegistry,
  entity: EntityDef,
  aggregation: Aggregation,
  sortBy: readonly string[],
  orders: readonly boolean[],
): SortKey[] {
  if (sortBy.length === 0) {
    const descending = directions(aggregation.groupBy.length, orders.length > 1 ? [] : orders)
    return aggregation.groupBy.map((target, i) => ({ by: { kind: 'field', target }, descending: descending[i]! }))
  }
  const descending = directions(sortBy.length, orders)
  const grouped = new Set(aggregation.groupBy.map(pathKey))
  return sortBy.map((entry, i) => {
    let by: SortTarget
    if (isAggregateExpression(entry))
      by = { kind: 'aggregate', expr: parseAggregate(registry, entity, 'sortBy', entry).expr }
    else {
      const { target } = columnPath(registry, entity, 'sortBy', entry, true)
      if (!grouped.has(pathKey(target)))
        throw parameterError('sortBy', `${entry} is not a groupBy field or an aggregation`)
      by = { kind: 'field', target }
    }
    return { by, descending: descending[i]! }
  })
}
