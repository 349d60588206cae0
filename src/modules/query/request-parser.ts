import { AppError } from '../../kernel/errors.ts'
import type { EntityDef, EntityRegistry, FieldType } from '../../kernel/model/index.ts'
import { PathProblem, walkPath, type WalkedPath } from './entity-paths.ts'
import { parseFilters, wildcardPattern, type FilterContext } from './filter-parser.ts'
import { fullTextFields, fullTextWords } from './opencell.model.ts'
import { decimalText, ValueProblem, valueFor } from './filter-values.ts'
import { isExactNumber, isPlainObject, parseFiltersText } from './json-text.ts'
import {
  combine,
  freeze,
  type AggregateExpr,
  type AggregateFn,
  type Aggregation,
  type CompareOp,
  type Condition,
  type FieldPath,
  type HavingCondition,
  type JoinKind,
  type OutputColumn,
  type Projection,
  type QueryAst,
  type RelationProjection,
  type SortKey,
  type SortTarget,
  type Value,
} from './query.model.ts'

/** A Query API request, whatever its transport: GET parameters, a POST body, or a saved report's advancedQuery. */
export interface QueryRequest {
  readonly filters?: Record<string, unknown> | undefined
  readonly fields?: readonly string[] | undefined
  readonly nested?: readonly string[] | undefined
  readonly depth?: number | undefined
  readonly offset?: number | undefined
  readonly limit?: number | undefined
  readonly sortBy?: readonly string[] | undefined
  readonly sortOrder?: readonly string[] | undefined
  readonly joinType?: string | undefined
  readonly groupBy?: readonly string[] | undefined
  readonly having?: readonly string[] | undefined
  readonly excluding?: readonly string[] | undefined
  readonly forceCount?: boolean | undefined
  readonly extractList?: boolean | undefined
  /** Words every row must hold, each in one of its text fields, in any case (Opencell's `fullTextFilter`). */
  readonly fullText?: string | undefined
  /** Which dialect the request came in: messages name the parameters as the client wrote them. */
  readonly dialect?: 'parameters' | 'body' | undefined
}

/** The names a client used for fields, nested and depth: GET parameters, or the legacy body names (§9). */
export function parameterNames(request: Pick<QueryRequest, 'dialect'>): {
  fields: string
  nested: string
  depth: string
} {
  return request.dialect === 'body'
    ? { fields: 'genericFields', nested: 'nestedEntities', depth: 'nestedDepth' }
    : { fields: 'fields', nested: 'nested', depth: 'depth' }
}

export const MAX_LIMIT = 1000
export const MAX_DEPTH = 5
const MAX_LIST_ENTRIES = 200
const SORT_ORDERS: Record<string, boolean> = { ASC: false, ASCENDING: false, DESC: true, DESCENDING: true }
const JOIN_TYPES: readonly JoinKind[] = ['INNER', 'LEFT', 'RIGHT']

export function parameterError(name: string, message: string): AppError {
  return new AppError('INVALID_PARAMETER', `${name}: ${message}`, { details: [{ field: name, message }] })
}

/** A §7.2 error whose message the document spells out: it begins as written there, without the field prefix. */
function documentedError(name: string, message: string): AppError {
  return new AppError('INVALID_PARAMETER', message, { details: [{ field: name, message }] })
}

/** Splits a comma list, keeping commas inside parentheses and quotes (`COALESCE(SUM(amount),0)`). */
export function splitList(text: string): string[] {
  const items: string[] = []
  let depth = 0
  let quote: string | undefined
  let current = ''
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = undefined
    } else if (c === "'" || c === '"') quote = c
    else if (c === '(') depth++
    else if (c === ')') depth = Math.max(0, depth - 1)
    else if (c === ',' && depth === 0) {
      items.push(current)
      current = ''
      continue
    }
    current += c
  }
  items.push(current)
  return items.map((s) => s.trim()).filter((s) => s.length > 0)
}

function listParameter(name: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined
  let items: string[]
  if (typeof value === 'string') items = splitList(value)
  else if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    items = value.flatMap((v: string) => splitList(v))
  else throw parameterError(name, 'expected a comma-separated string or an array of strings')
  if (items.length > MAX_LIST_ENTRIES) throw parameterError(name, `expected at most ${MAX_LIST_ENTRIES} entries`)
  // An empty parameter (`fields=`) is the same as no parameter.
  return items.length === 0 ? undefined : items
}

function integerParameter(name: string, value: unknown, max: number): number | undefined {
  if (value === undefined || value === null) return undefined
  const text =
    typeof value === 'number'
      ? String(value)
      : isExactNumber(value)
        ? value.rawJSON
        : typeof value === 'string'
          ? value.trim()
          : ''
  if (!/^\d+$/.test(text)) throw parameterError(name, 'expected an integer of 0 or more')
  const n = Number(text)
  return Number.isSafeInteger(n) && n <= max ? n : max
}

function booleanParameter(name: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'boolean') return value
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true'
  throw parameterError(name, 'expected true or false')
}

function stringParameter(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw parameterError(name, 'expected a string')
  return value
}

function filtersParameter(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value.trim() === '' ? undefined : parseFiltersText(value)
  if (!isPlainObject(value)) {
    throw new AppError('INVALID_FILTER', 'filters: expected a JSON object', {
      details: [{ field: 'filters', message: 'expected a JSON object' }],
    })
  }
  return value
}

// Offsets beyond this are meaningless and would overflow PostgreSQL's bigint arithmetic in OFFSET.
const MAX_OFFSET = Number.MAX_SAFE_INTEGER

/** The GET dialect (§2.5). */
export function requestFromQueryParameters(query: Record<string, unknown>): QueryRequest {
  return {
    filters: filtersParameter(query.filters),
    fields: listParameter('fields', query.fields),
    nested: listParameter('nested', query.nested),
    depth: integerParameter('depth', query.depth, Number.MAX_SAFE_INTEGER),
    offset: integerParameter('offset', query.offset, MAX_OFFSET),
    limit: integerParameter('limit', query.limit, Number.MAX_SAFE_INTEGER),
    sortBy: listParameter('sortBy', query.sortBy),
    sortOrder: listParameter('sortOrder', query.sortOrder),
    joinType: stringParameter('joinType', query.joinType),
    groupBy: listParameter('groupBy', query.groupBy),
    having: listParameter('having', query.having),
    excluding: listParameter('excluding', query.excluding),
    forceCount: booleanParameter('forceCount', query.forceCount),
    extractList: booleanParameter('extractList', query.extractList),
    fullText: stringParameter('fullTextFilter', query.fullTextFilter),
    dialect: 'parameters',
  }
}

/** Body keys of the POST dialect and of a saved report's advancedQuery: the legacy names (§4.1, §9). */
export const LEGACY_BODY_KEYS = [
  'filters',
  'genericFields',
  'nestedEntities',
  'nestedDepth',
  'limit',
  'offset',
  'sortBy',
  'sortOrder',
  'joinType',
  'groupBy',
  'having',
  'excluding',
  'forceCount',
  'extractList',
  'fullTextFilter',
] as const

/** The GET names a client may send in a POST body by mistake, and the body's name for each. */
const GET_NAMES: Record<string, string> = { fields: 'genericFields', nested: 'nestedEntities', depth: 'nestedDepth' }

/** Refuses a key the POST dialect does not know, pointing at the legacy name when the GET one was sent. */
export function unknownBodyKey(key: string): void {
  if ((LEGACY_BODY_KEYS as readonly string[]).includes(key)) return
  const hint = GET_NAMES[key]
  if (hint) throw parameterError(key, `is the GET parameter's name; the POST body calls it ${hint}`)
  throw parameterError(key, `is not a known field; expected one of ${LEGACY_BODY_KEYS.join(', ')}`)
}

/** The POST dialect: legacy names, lists as arrays (or comma strings). Unknown keys are refused. */
export function requestFromLegacyBody(body: Record<string, unknown>): QueryRequest {
  for (const key of Object.keys(body)) unknownBodyKey(key)
  return {
    filters: filtersParameter(body.filters),
    fields: listParameter('genericFields', body.genericFields),
    nested: listParameter('nestedEntities', body.nestedEntities),
    depth: integerParameter('nestedDepth', body.nestedDepth, Number.MAX_SAFE_INTEGER),
    offset: integerParameter('offset', body.offset, MAX_OFFSET),
    limit: integerParameter('limit', body.limit, Number.MAX_SAFE_INTEGER),
    sortBy: listParameter('sortBy', body.sortBy),
    sortOrder: listParameter('sortOrder', body.sortOrder),
    joinType: stringParameter('joinType', body.joinType),
    groupBy: listParameter('groupBy', body.groupBy),
    having: listParameter('having', body.having),
    excluding: listParameter('excluding', body.excluding),
    forceCount: booleanParameter('forceCount', body.forceCount),
    extractList: booleanParameter('extractList', body.extractList),
    fullText: stringParameter('fullTextFilter', body.fullTextFilter),
    dialect: 'body',
  }
}

export interface BuildContext extends FilterContext {
  /** The tenant's default page size. */
  readonly defaultLimit: number
  /** Added to the filters (a subclass token restricts to its discriminator value). */
  readonly restriction?: Condition | undefined
}

export interface BuiltQuery {
  readonly ast: QueryAst
  readonly usesSql: boolean
}

export function parseSortOrder(value: string): boolean {
  const descending = SORT_ORDERS[value.trim().toUpperCase()]
  if (descending === undefined) {
    throw documentedError('sortOrder', `Invalid sortOrder ${value}, expected one of ASC, DESC, ASCENDING, DESCENDING`)
  }
  return descending
}

export function parseJoinType(value: string | undefined): JoinKind {
  if (value === undefined) return 'INNER'
  const kind = JOIN_TYPES.find((j) => j === value.trim().toUpperCase())
  if (!kind) throw documentedError('joinType', `Invalid joinType ${value}, expected one of INNER, LEFT, RIGHT`)
  return kind
}

const AGGREGATE_START = /^\s*(SUM|COUNT|AVG|MAX|MIN|COALESCE)\s*\(/i
export const isAggregateExpression = (text: string) => AGGREGATE_START.test(text)

/** Builds the validated, immutable AST of a request on an entity. */
export function buildQuery(entity: EntityDef, request: QueryRequest, context: BuildContext): BuiltQuery {
  const registry = context.registry
  const joinType = parseJoinType(request.joinType)
  const orders = (request.sortOrder ?? []).map(parseSortOrder)
  const names = parameterNames(request)
  const depth = request.depth ?? 0
  if (depth > MAX_DEPTH) throw parameterError(names.depth, `expected an integer from 0 to ${MAX_DEPTH}`)
  const limit = Math.min(request.limit ?? context.defaultLimit, MAX_LIMIT)
  const offset = request.offset ?? 0
  const filters = request.filters ? parseFilters(entity, request.filters, context) : undefined
  const where = combine('and', [
    filters?.condition ?? { kind: 'constant', value: true },
    context.restriction ?? { kind: 'constant', value: true },
    request.fullText === undefined ? { kind: 'constant', value: true } : fullTextCondition(entity, request.fullText),
  ])

  const fields = request.fields ?? []
  const aggregate = fields.some(isAggregateExpression) || (request.groupBy?.length ?? 0) > 0
  let select: QueryAst['select']
  let orderBy: SortKey[]
  if (aggregate) {
    if ((request.nested?.length ?? 0) > 0)
      throw parameterError(names.nested, 'cannot be combined with aggregation fields or groupBy')
    const aggregation = buildAggregation(
      registry,
      entity,
      names.fields,
      fields,
      request.groupBy ?? [],
      request.having ?? [],
      request.excluding ?? [],
    )
    select = { kind: 'aggregate', aggregation }
    orderBy = aggregateOrder(registry, entity, aggregation, request.sortBy ?? [], orders)
  } else {
    if ((request.having?.length ?? 0) > 0) throw parameterError('having', 'needs aggregation fields or groupBy')
    const tree = nestTree(registry, entity, names.nested, request.nested ?? [])
    let projection = request.fields
      ? projectFields(registry, entity, names.fields, fields, tree, depth)
      : fullProjection(registry, entity, tree, depth, true)
    for (const path of request.excluding ?? []) projection = exclude(registry, entity, projection, path)
    select = { kind: 'entities', projection }
    orderBy = entityOrder(registry, entity, request.sortBy ?? [], orders)
  }
  const ast: QueryAst = { entity: entity.name, where, joinType, select, orderBy, offset, limit }
  return { ast: freeze(ast), usesSql: filters?.usesSql ?? false }
}

const MAX_FULL_TEXT_WORDS = 20

/** Every word in some text field of the entity, case-insensitively: (f1 LIKE w1 OR f2 LIKE w1) AND (… w2 …). */
function fullTextCondition(entity: EntityDef, text: string): Condition {
  const words = fullTextWords(text)
  if (words.length === 0) return { kind: 'constant', value: true }
  if (words.length > MAX_FULL_TEXT_WORDS)
    throw parameterError('fullTextFilter', `expected at most ${MAX_FULL_TEXT_WORDS} words, got ${words.length}`)
  const fields = fullTextFields(entity)
  if (fields.length === 0) throw parameterError('fullTextFilter', `${entity.name} has no text field to search`)
  return combine(
    'and',
    words.map((word) =>
      combine(
        'or',
        fields.map((field) => ({
          kind: 'like',
          target: { relations: [], field },
          pattern: wildcardPattern(`*${word}*`),
          ignoreCase: true,
        })),
      ),
    ),
  )
}

function walk(registry: EntityRegistry, entity: EntityDef, parameter: string, path: string): WalkedPath {
  try {
    return walkPath(registry, entity, path)
  } catch (error) {
    if (error instanceof PathProblem) throw parameterError(parameter, error.message)
    throw error
  }
}

// ---------------------------------------------------------------------------------------------------- projection

type NestTree = Map<string, NestTree>

/** `nested` paths as a tree of relation names; every segment must be a relation. */
function nestTree(registry: EntityRegistry, entity: EntityDef, parameter: string, paths: readonly string[]): NestTree {
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
 * An entity written in full (DECISIONS "Relations not listed in nested"): every field; relations listed in
 * `nested` in full; below a listed relation, `remaining` further levels of relations and collections in full;
 * other many-to-ones as `{ "id": n }`; other collections left out. At the root, depth does not apply.
 */
function fullProjection(
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
function projectFields(
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
function exclude(registry: EntityRegistry, entity: EntityDef, projection: Projection, path: string): Projection {
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
function columnPath(
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

function directions(count: number, orders: readonly boolean[]): boolean[] {
  if (orders.length > 1 && orders.length !== count) {
    throw parameterError('sortOrder', 'expected one sort order, or one per sortBy entry')
  }
  return Array.from({ length: count }, (_, i) => orders[orders.length === 1 ? 0 : i] ?? false)
}

/** sortBy (dotted paths allowed), then `id` so pages are stable. */
function entityOrder(
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

// --------------------------------------------------------------------------------------------------- aggregation

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

function buildAggregation(
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

/** DECISIONS: `<AGG>(<field>) <op> <value>`, op in = != <> < <= > >=, value a number or a quoted string. */
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
function aggregateOrder(
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
