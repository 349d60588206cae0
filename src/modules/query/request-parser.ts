import { AppError } from '../../kernel/errors.ts'
import type { EntityDef } from '../../kernel/model/index.ts'
import { MAX_PAGE_LIMIT } from '../../kernel/http/pagination.ts'
import { parseFilters, wildcardPattern, type FilterContext } from './filter-parser.ts'
import { fullTextFields, fullTextWords } from './opencell.model.ts'
import { isExactNumber, isPlainObject, parseFiltersText } from './json-text.ts'
import { combine, freeze, type Condition, type JoinKind, type QueryAst, type SortKey } from './query.model.ts'
import { parameterError } from './parameter-error.ts'
import { entityOrder, exclude, fullProjection, nestTree, projectFields } from './projection.ts'
import { aggregateOrder, buildAggregation, isAggregateExpression } from './aggregation.ts'

export { parameterError } from './parameter-error.ts'
export { isAggregateExpression } from './aggregation.ts'
export { entityProjection } from './projection.ts'

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

/**
 * The names a client used for fields, nested and depth: the GET parameters, or the POST body's legacy names
 * (genericFields, nestedEntities, nestedDepth), so that an error names the field as the client wrote it.
 */
export function parameterNames(request: Pick<QueryRequest, 'dialect'>): {
  fields: string
  nested: string
  depth: string
} {
  return request.dialect === 'body'
    ? { fields: 'genericFields', nested: 'nestedEntities', depth: 'nestedDepth' }
    : { fields: 'fields', nested: 'nested', depth: 'depth' }
}

export const MAX_DEPTH = 5
const MAX_LIST_ENTRIES = 200
const SORT_ORDERS: Record<string, boolean> = { ASC: false, ASCENDING: false, DESC: true, DESCENDING: true }
const JOIN_TYPES: readonly JoinKind[] = ['INNER', 'LEFT', 'RIGHT']

/**
 * An INVALID_PARAMETER error whose message clients match word for word: it is written as given, without the
 * usual `<field>: ` prefix.
 */
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

/** The GET dialect: query parameters named fields, nested, depth…, lists as comma-separated text. */
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

/** Body keys of the POST dialect and of a saved report's advancedQuery: the legacy names (genericFields, …). */
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

/** Builds the validated, immutable AST of a request on an entity. */
export function buildQuery(entity: EntityDef, request: QueryRequest, context: BuildContext): BuiltQuery {
  const registry = context.registry
  const joinType = parseJoinType(request.joinType)
  const orders = (request.sortOrder ?? []).map(parseSortOrder)
  const names = parameterNames(request)
  const depth = request.depth ?? 0
  if (depth > MAX_DEPTH) throw parameterError(names.depth, `expected an integer from 0 to ${MAX_DEPTH}`)
  const limit = Math.min(request.limit ?? context.defaultLimit, MAX_PAGE_LIMIT)
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
