import { validationError, type ErrorDetail } from '../../kernel/errors.ts'
import {
  isOfferStatus,
  OFFER_STATUSES,
  ORDERABLE_STATUSES,
  PORTAL_STATUS,
  type OfferDialect,
  type OfferStatus,
  type OfferWrite,
} from '../catalog/index.ts'
import type { OfferFieldsBody, OfferRecord } from './offers.schemas.ts'
import {
  INSTANT_FIELDS,
  LIST_FIELDS,
  SORT_KEYS,
  TEXT_FIELDS,
  type Condition,
  type InstantField,
  type ListField,
  type SortKey,
  type TextField,
} from '../catalog/index.ts'

// ---------------------------------------------------------------------------------------------------------------
// Statuses: the portal words and the backend statuses they stand for.

export type PortalStatus = (typeof PORTAL_STATUS)[OfferStatus]
export const PORTAL_WORDS: readonly PortalStatus[] = ['draft', 'ready', 'live', 'retired']

/** The backend statuses of each portal word, in life-cycle order; the first is the one a portal word sets. */
export const PORTAL_GROUPS: Readonly<Record<PortalStatus, readonly OfferStatus[]>> = {
  draft: OFFER_STATUSES.filter((s) => PORTAL_STATUS[s] === 'draft'),
  ready: OFFER_STATUSES.filter((s) => PORTAL_STATUS[s] === 'ready'),
  live: OFFER_STATUSES.filter((s) => PORTAL_STATUS[s] === 'live'),
  retired: OFFER_STATUSES.filter((s) => PORTAL_STATUS[s] === 'retired'),
}

/**
 * How a status word is read: a portal word exactly as this interface writes it (`retired`) first, then a backend
 * status in any case (`RETIRED`, `launched`), then a portal word in any other case (`LIVE`). Only `retired` and
 * `RETIRED` could mean either; the lower-case word is the portal's, so a record read and written back keeps meaning
 * what it said.
 */
function readWord(word: string): { portal: PortalStatus } | { backend: OfferStatus } | undefined {
  const exact = PORTAL_WORDS.find((w) => w === word)
  if (exact) return { portal: exact }
  const backend = word.toUpperCase()
  if (isOfferStatus(backend)) return { backend }
  const portal = PORTAL_WORDS.find((w) => w === word.toLowerCase())
  return portal ? { portal } : undefined
}

/** The backend statuses a word names: a backend status, or a portal word's whole group. */
export function statusesOfWord(word: string): readonly OfferStatus[] | undefined {
  const read = readWord(word)
  if (!read) return undefined
  return 'backend' in read ? [read.backend] : PORTAL_GROUPS[read.portal]
}

/**
 * The status a word sets on an offer now in `current` (undefined: a new offer). A backend word sets that status; a
 * portal word sets the first status of its group, except that an offer already in the group stays where it is (so a
 * record read and written back never asks an OBSOLETE offer to become RETIRED).
 */
export function readStatusWord(word: string, current: OfferStatus | undefined): OfferStatus | undefined {
  const read = readWord(word)
  if (!read) return undefined
  if ('backend' in read) return read.backend
  const group = PORTAL_GROUPS[read.portal]
  return current !== undefined && group.includes(current) ? current : group[0]
}

export const STATUS_WORDS = `a portal status (${PORTAL_WORDS.join(', ')}) or a backend status (${OFFER_STATUSES.join(', ')}), in any case`

/** How this interface names the offer fields and statuses, for the shared catalog rules' messages. */
export const OFFERS_DIALECT: OfferDialect = {
  field: {
    status: 'status',
    validFrom: 'valid_from',
    validTo: 'valid_to',
    offerComponents: 'offer_components',
    productCode: 'code',
    defaultQuantity: 'default_quantity',
    minQuantity: 'min_quantity',
    maxQuantity: 'max_quantity',
    productCodes: 'product_codes',
    offerServiceTemplates: 'offer_service_templates',
    discountPlans: 'discount_plan_codes',
    sellers: 'seller_codes',
    offerTemplateCategories: 'category_codes',
  },
  readStatus: readStatusWord,
  statusExpected: `expected ${STATUS_WORDS}`,
  showStatus: (status) => `${PORTAL_STATUS[status]} (${status})`,
  deleteRefusal: 'OFFER_STATUS_TRANSITION_INVALID',
}

// ---------------------------------------------------------------------------------------------------------------
// Instants on the wire.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i

/** An ISO-8601 date-time with its offset (`2026-03-01T00:00:00Z`) or a date (`2026-03-01`) that exists. */
export function isInstantText(value: string): boolean {
  const match = DATE_TIME.exec(value) ?? DATE.exec(value)
  if (!match) return false
  const [year, month, day, hour = '0', minute = '0', second = '0', offsetHour = '0', offsetMinute = '0'] = match
    .slice(1)
    .map((part) => part ?? undefined)
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  return (
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    Number(hour) < 24 &&
    Number(minute) < 60 &&
    Number(second) < 60 &&
    Number(offsetHour) < 24 &&
    Number(offsetMinute) < 60
  )
}

const INSTANT_EXPECTED = 'expected an ISO-8601 date-time with its offset (2026-03-01T00:00:00Z) or a date (2026-03-01)'

// ---------------------------------------------------------------------------------------------------------------
// Bodies: the snake_case fields as a catalog write.

/**
 * A body of this interface as a write of the shared catalog rules. Field names map one to one (`name` is the name,
 * `description` the description); `valid_from`/`valid_to` must be instants.
 */
export function offerWriteOf(body: OfferFieldsBody): OfferWrite {
  const problems: ErrorDetail[] = []
  for (const field of ['valid_from', 'valid_to'] as const) {
    const value = body[field]
    if (typeof value === 'string' && !isInstantText(value)) problems.push({ field, message: INSTANT_EXPECTED })
  }
  if (problems.length > 0) throw validationError(problems)
  const write: OfferWrite = {}
  if (body.name !== undefined) write.name = body.name
  if (body.description !== undefined) write.description = body.description
  if (body.status !== undefined) write.status = body.status
  if (body.valid_from !== undefined) write.validFrom = body.valid_from
  if (body.valid_to !== undefined) write.validTo = body.valid_to
  if (body.auto_end_of_engagement !== undefined) write.autoEndOfEngagement = body.auto_end_of_engagement
  if (body.attributes !== undefined) write.attributes = body.attributes
  if (body.product_codes !== undefined) write.productCodes = body.product_codes
  if (body.category_codes !== undefined) write.offerTemplateCategories = body.category_codes
  if (body.seller_codes !== undefined) write.sellers = body.seller_codes
  if (body.discount_plan_codes !== undefined) write.discountPlans = body.discount_plan_codes
  if (body.offer_components !== undefined) {
    write.offerComponents = body.offer_components.map((c) => ({
      productCode: c.code,
      ...(c.mandatory === undefined ? {} : { mandatory: c.mandatory }),
      ...(c.default_quantity === undefined ? {} : { defaultQuantity: c.default_quantity }),
      ...(c.min_quantity === undefined ? {} : { minQuantity: c.min_quantity }),
      ...(c.max_quantity === undefined ? {} : { maxQuantity: c.max_quantity }),
    }))
  }
  if (body.offer_service_templates !== undefined) {
    write.offerServiceTemplates = body.offer_service_templates.map((s) => ({
      serviceTemplateCode: s.code,
      ...(s.mandatory === undefined ? {} : { mandatory: s.mandatory }),
    }))
  }
  return write
}

// ---------------------------------------------------------------------------------------------------------------
// Ranges: `range=a-b`, 0-based and inclusive, at most PAGE_MAX offers.

export const PAGE_MAX = 100
export const RANGE_UNIT = 'offers'
export const DEFAULT_RANGE: Range = { first: 0, last: 24 }

export interface Range {
  readonly first: number
  readonly last: number
}

/** Reads `a-b`; anything else, `b` before `a` or more than PAGE_MAX offers is a 400 naming the field. */
export function parseRange(text: string | undefined, field = 'range'): Range {
  if (text === undefined) return DEFAULT_RANGE
  const match = /^(\d{1,9})-(\d{1,9})$/.exec(text.trim())
  const problem = (message: string) => validationError([{ field, message }])
  if (!match) throw problem(`expected a-b, the 0-based positions of the first and last offer (for example 0-24)`)
  const range = { first: Number(match[1]), last: Number(match[2]) }
  if (range.last < range.first) throw problem(`expected the last position (${range.last}) at or after the first`)
  if (range.last - range.first + 1 > PAGE_MAX) throw problem(`expected at most ${PAGE_MAX} offers a page`)
  return range
}

/** What a page answers: 200 when it holds every offer, 206 when more exist, 416 when it starts past the end. */
export type PageAnswer =
  { status: 200 | 206; contentRange: string; returned: Range } | { status: 416; contentRange: string }

export function answerPage(range: Range, total: number): PageAnswer {
  // An empty collection read from the start is an empty page, not an error.
  if (total === 0 && range.first === 0) return { status: 200, contentRange: `${RANGE_UNIT} */0`, returned: range }
  if (range.first >= total) return { status: 416, contentRange: `${RANGE_UNIT} */${total}` }
  const returned = { first: range.first, last: Math.min(range.last, total - 1) }
  return {
    status: returned.last - returned.first + 1 < total ? 206 : 200,
    contentRange: `${RANGE_UNIT} ${returned.first}-${returned.last}/${total}`,
    returned,
  }
}

/** The neighbouring pages of a range (same size): first and last always, prev and next where they exist. */
export function neighbourPages(range: Range, total: number): { rel: string; range: Range }[] {
  if (total === 0) return []
  const size = range.last - range.first + 1
  const pages = [{ rel: 'first', range: { first: 0, last: size - 1 } }]
  if (range.first > 0) {
    const first = Math.max(0, range.first - size)
    pages.push({ rel: 'prev', range: { first, last: Math.min(first + size, range.first) - 1 } })
  }
  if (range.last < total - 1) pages.push({ rel: 'next', range: { first: range.last + 1, last: range.last + size } })
  const lastFirst = Math.max(0, total - size)
  pages.push({ rel: 'last', range: { first: lastFirst, last: lastFirst + size - 1 } })
  return pages
}

/**
 * The RFC 8288 `Link` header of a page: absolute URLs under the public base URL, the request's own path and query
 * with `range` replaced (a search is POSTed again with the same body to the linked URL).
 */
export function linkHeader(publicUrl: string, requestUrl: string, range: Range, total: number): string | undefined {
  const request = new URL(requestUrl, 'http://request.invalid')
  const base = publicUrl.replace(/\/+$/, '')
  const links = neighbourPages(range, total).map(({ rel, range: page }) => {
    const query = new URLSearchParams(request.searchParams)
    query.set('range', `${page.first}-${page.last}`)
    return `<${base}${request.pathname}?${query.toString()}>; rel="${rel}"`
  })
  return links.length > 0 ? links.join(', ') : undefined
}

// ---------------------------------------------------------------------------------------------------------------
// Sort, projection, expansion.

/**
 * Reads sort keys (`name`, `-valid_from`: a `-` sorts descending). The code always ends the order, so pages are
 * stable; `status` sorts in life-cycle order.
 */
export function parseSort(items: readonly string[], field = 'sort'): SortKey[] {
  const keys: SortKey[] = []
  for (const item of items.map((i) => i.trim()).filter((i) => i !== '')) {
    const descending = item.startsWith('-')
    const name = descending ? item.slice(1) : item
    const known = SORT_KEYS.find((k) => k === name)
    if (!known)
      throw validationError([{ field, message: `cannot sort by '${name}': expected ${SORT_KEYS.join(', ')}` }])
    if (keys.some((k) => k.field === known)) throw validationError([{ field, message: `sorts by ${known} twice` }])
    keys.push({ field: known, descending })
  }
  if (!keys.some((k) => k.field === 'code')) keys.push({ field: 'code', descending: false })
  return keys
}

export const RECORD_FIELDS = [
  'code',
  'name',
  'description',
  'status',
  'valid_from',
  'valid_to',
  'product_codes',
  'category_codes',
  'seller_codes',
  'discount_plan_codes',
  'auto_end_of_engagement',
  'attributes',
  'offer_components',
  'offer_service_templates',
] as const
export type RecordField = (typeof RECORD_FIELDS)[number]

/** Reads a projection; `code` is always part of it. Undefined (no projection) when no field is named. */
export function parseFields(items: readonly string[] | undefined, field = 'fields'): RecordField[] | undefined {
  const names = (items ?? []).map((i) => i.trim()).filter((i) => i !== '')
  if (names.length === 0) return undefined
  const fields = new Set<RecordField>(['code'])
  for (const name of names) {
    const known = RECORD_FIELDS.find((f) => f === name)
    if (!known) {
      const hint = name === 'products' ? ' (products come with expand=products)' : ''
      throw validationError([
        { field, message: `unknown field '${name}'${hint}: expected ${RECORD_FIELDS.join(', ')}` },
      ])
    }
    fields.add(known)
  }
  return [...fields]
}

/** Reads the expansions: only `products` exists. */
export function parseExpand(items: readonly string[] | undefined, field = 'expand'): { products: boolean } {
  const names = (items ?? []).map((i) => i.trim()).filter((i) => i !== '')
  for (const name of names) {
    if (name !== 'products') throw validationError([{ field, message: `cannot expand '${name}': expected products` }])
  }
  return { products: names.length > 0 }
}

/** A comma-separated query parameter as its items. */
export const commaList = (text: string | undefined): string[] | undefined =>
  text === undefined ? undefined : text.split(',')

/** A record keeping only the projected fields (all when there is no projection). */
export function project(record: OfferRecord, fields: readonly RecordField[] | undefined): OfferRecord {
  if (!fields) return record
  const projected: Record<string, unknown> = {}
  for (const field of fields) projected[field] = record[field]
  if (record.products) projected.products = record.products
  return projected as OfferRecord
}

// ---------------------------------------------------------------------------------------------------------------
// Filters of the list (`status`, `category`, `seller`) and of the search.

export type FilterField = TextField | InstantField | ListField | 'status'
export const FILTER_FIELDS: readonly FilterField[] = [...TEXT_FIELDS, 'status', ...INSTANT_FIELDS, ...LIST_FIELDS]

export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'in'] as const
type Operator = (typeof OPERATORS)[number]

const OPERATORS_OF: Record<'text' | 'instant' | 'list' | 'status', readonly Operator[]> = {
  text: OPERATORS,
  instant: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'],
  list: ['eq', 'ne', 'contains', 'in'],
  status: ['eq', 'ne', 'in'],
}

const kindOf = (field: FilterField) =>
  field === 'status'
    ? 'status'
    : (TEXT_FIELDS as readonly string[]).includes(field)
      ? 'text'
      : (INSTANT_FIELDS as readonly string[]).includes(field)
        ? 'instant'
        : 'list'

function operatorCondition(field: FilterField, op: Operator, value: unknown, path: string): Condition {
  const fail = (message: string) => validationError([{ field: path, message }])
  const kind = kindOf(field)
  const text = (v: unknown, nullable: boolean): string | null => {
    if (v === null && nullable) return null
    if (typeof v !== 'string') throw fail(nullable ? 'expected a string or null' : 'expected a string')
    if (kind === 'instant' && !isInstantText(v)) throw fail(INSTANT_EXPECTED)
    return v
  }
  const texts = (v: unknown): string[] => {
    if (!Array.isArray(v) || v.length === 0) throw fail('expected a non-empty array of strings')
    return v.map((item) => text(item, false)!)
  }
  switch (kind) {
    case 'status': {
      const words = op === 'in' ? texts(value) : [text(value, false)!]
      const statuses = new Set<OfferStatus>()
      for (const word of words) {
        const named = statusesOfWord(word)
        if (!named) throw fail(`unknown status '${word}': expected ${STATUS_WORDS}`)
        for (const s of named) statuses.add(s)
      }
      return { kind: 'status', statuses: OFFER_STATUSES.filter((s) => statuses.has(s)), negate: op === 'ne' }
    }
    case 'list': {
      const listField = field as ListField
      if (op === 'in') return { kind: 'list', field: listField, match: 'any', values: texts(value) }
      if (op === 'contains') {
        const values = Array.isArray(value) ? texts(value) : [text(value, false)!]
        return { kind: 'list', field: listField, match: 'all', values }
      }
      return { kind: 'list', field: listField, match: op === 'eq' ? 'all' : 'none', values: [text(value, false)!] }
    }
    case 'text':
    case 'instant': {
      const scalar = field as TextField | InstantField
      if (op === 'in') return { kind: 'oneOf', field: scalar, values: texts(value) }
      if (op === 'contains') return { kind: 'contains', field: field as TextField, value: text(value, false)! }
      // Only code may never be absent; eq/ne null ask for an absent (or present) value.
      const nullable = field !== 'code' && (op === 'eq' || op === 'ne')
      return { kind: 'compare', field: scalar, op, value: text(value, nullable) }
    }
  }
}

/**
 * Reads the `filters` of a search: each field maps to a value list (any of them), a single value (equal to it) or
 * an operator object (every operator must hold). Unknown fields, operators a field does not take, and values of the
 * wrong type are 400s naming `filters.<field>[.<operator>]`.
 */
export function parseFilters(filters: Readonly<Record<string, unknown>> | undefined): Condition[] {
  const conditions: Condition[] = []
  for (const [name, value] of Object.entries(filters ?? {})) {
    const field = FILTER_FIELDS.find((f) => f === name)
    const path = `filters.${name}`
    if (!field)
      throw validationError([{ field: path, message: `is not a known field: expected ${FILTER_FIELDS.join(', ')}` }])
    if (value === undefined) continue
    if (Array.isArray(value)) conditions.push(operatorCondition(field, 'in', value, path))
    else if (value === null || typeof value !== 'object') conditions.push(operatorCondition(field, 'eq', value, path))
    else {
      const entries = Object.entries(value as Record<string, unknown>)
      if (entries.length === 0) throw validationError([{ field: path, message: 'expected at least one operator' }])
      const allowed = OPERATORS_OF[kindOf(field)]
      for (const [op, operand] of entries) {
        const known = allowed.find((o) => o === op)
        if (!known) {
          throw validationError([
            { field: `${path}.${op}`, message: `${name} takes the operators ${allowed.join(', ')}` },
          ])
        }
        conditions.push(operatorCondition(field, known, operand, `${path}.${op}`))
      }
    }
  }
  return conditions
}

/**
 * The list's query filters as conditions: `status` (comma-separated words, any of them), `category` and `seller`
 * (comma-separated codes: offers in any of those categories, sold by any of those sellers), `orderable` (the statuses
 * an order accepts, or the others).
 */
export function listConditions(query: {
  status?: string
  category?: string
  seller?: string
  orderable?: boolean
}): Condition[] {
  const conditions: Condition[] = []
  // The statuses an order accepts are the catalog's rule (ORDERABLE_STATUSES), asked for rather than restated.
  if (query.orderable !== undefined) {
    conditions.push({ kind: 'status', statuses: ORDERABLE_STATUSES, negate: !query.orderable })
  }
  const items = (text: string | undefined) =>
    commaList(text)
      ?.map((i) => i.trim())
      .filter((i) => i !== '')
  const status = items(query.status)
  if (status?.length) conditions.push(operatorCondition('status', 'in', status, 'status'))
  const category = items(query.category)
  if (category?.length) conditions.push({ kind: 'list', field: 'category_codes', match: 'any', values: category })
  const seller = items(query.seller)
  if (seller?.length) conditions.push({ kind: 'list', field: 'seller_codes', match: 'any', values: seller })
  return conditions
}
