import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import { textArray, wireValue } from '../../kernel/model/json.ts'
import { instantSql } from './offer-template.repository.ts'
import { OFFER_STATUSES, type OfferStatus } from './offer-status.model.ts'
import type {
  Comparison,
  Condition,
  InstantField,
  ListField,
  SortField,
  SortKey,
  TextField,
} from './offer-search.model.ts'
import { sellerCodeOf } from '../accounts/index.ts'
import { discountPlanCodeOf } from '../discounts/index.ts'

// The reads of the second offer interface (module offers): one statement per page that PostgreSQL turns into JSON.

/** An offer as stored: the backend status, the products in component order, the other links by code. */
export interface OfferRow {
  code: string
  name: string | null
  description: string | null
  life_cycle_status: OfferStatus
  valid_from: string | null
  valid_to: string | null
  auto_end_of_engagement: boolean
  attributes: Record<string, unknown>
  offer_components: {
    code: string
    mandatory: boolean
    default_quantity: number
    min_quantity: number | null
    max_quantity: number | null
  }[]
  offer_service_templates: { code: string; mandatory: boolean }[]
  category_codes: string[]
  seller_codes: string[]
  discount_plan_codes: string[]
}

const instant = (name: 'validFrom' | 'validTo') => wireValue('o', registry.get('OfferTemplate').fields.get(name)!)

const ROW_JSON = sql`json_build_object(
  'code', o.code,
  'name', o.name,
  'description', o.description,
  'life_cycle_status', o.life_cycle_status,
  'valid_from', ${instant('validFrom')},
  'valid_to', ${instant('validTo')},
  'auto_end_of_engagement', o.auto_end_of_engagement,
  'attributes', o.attributes,
  'offer_components', coalesce((
    select json_agg(json_build_object('code', p.code, 'mandatory', c.mandatory,
      'default_quantity', c.default_quantity, 'min_quantity', c.min_quantity, 'max_quantity', c.max_quantity)
      order by c.sequence, c.id)
    from offer_component c join product p on p.id = c.product_id where c.offer_template_id = o.id), '[]'::json),
  'offer_service_templates', coalesce((
    select json_agg(json_build_object('code', s.code, 'mandatory', l.mandatory) order by l.sequence, l.id)
    from offer_service_template l join service_template s on s.id = l.service_template_id
    where l.offer_template_id = o.id), '[]'::json),
  'category_codes', coalesce((
    select json_agg(k.code order by k.code) from offer_category l
    join offer_template_category k on k.id = l.offer_template_category_id where l.offer_template_id = o.id), '[]'::json),
  'seller_codes', coalesce((
    select json_agg(k.code order by k.code) from (select ${sellerCodeOf(sql`l.seller_id`)} as code
      from offer_seller l where l.offer_template_id = o.id) k), '[]'::json),
  'discount_plan_codes', coalesce((
    select json_agg(k.code order by k.code) from (select ${discountPlanCodeOf(sql`l.discount_plan_id`)} as code
      from offer_discount_plan l where l.offer_template_id = o.id) k), '[]'::json)
)::text`

/** Each list field: the link table `l` and the code of the record its row links (sellers' through accounts). */
const LINKS: Record<ListField, { table: SQL; code: SQL }> = {
  category_codes: {
    table: sql`offer_category`,
    code: sql`(select code from offer_template_category k where k.id = l.offer_template_category_id)`,
  },
  seller_codes: { table: sql`offer_seller`, code: sellerCodeOf(sql`l.seller_id`) },
  product_codes: { table: sql`offer_component`, code: sql`(select code from product k where k.id = l.product_id)` },
}

const COLUMNS: Record<TextField | InstantField, SQL> = {
  code: sql`o.code`,
  name: sql`o.name`,
  description: sql`o.description`,
  valid_from: sql`o.valid_from`,
  valid_to: sql`o.valid_to`,
}

const OPERATOR_SQL: Record<Exclude<Comparison, 'eq' | 'ne'>, SQL> = {
  gt: sql`>`,
  gte: sql`>=`,
  lt: sql`<`,
  lte: sql`<=`,
}

/** The SQL of a condition; instants are read in the tenant time zone (a date is the start of that day). */
function conditionSql(condition: Condition, timeZone: string): SQL {
  switch (condition.kind) {
    case 'status':
      return sql`o.life_cycle_status ${condition.negate ? sql`not in` : sql`in`} (${sql.join(
        condition.statuses.map((s) => sql`${s}`),
        sql`, `,
      )})`
    case 'contains':
      return sql`strpos(lower(${COLUMNS[condition.field]}), lower(${condition.value})) > 0`
    case 'oneOf': {
      const values = condition.values.map((v) =>
        condition.field === 'valid_from' || condition.field === 'valid_to' ? instantSql(v, timeZone) : sql`${v}`,
      )
      return sql`${COLUMNS[condition.field]} in (${sql.join(values, sql`, `)})`
    }
    case 'compare': {
      const isInstant = condition.field === 'valid_from' || condition.field === 'valid_to'
      const column = COLUMNS[condition.field]
      if (condition.value === null) return condition.op === 'eq' ? sql`${column} is null` : sql`${column} is not null`
      const value = isInstant ? instantSql(condition.value, timeZone) : sql`${condition.value}`
      if (condition.op === 'eq') return sql`${column} = ${value}`
      if (condition.op === 'ne') return sql`${column} is distinct from ${value}`
      // An absent end is open (after every instant), an absent start is since always.
      const ordered =
        condition.field === 'valid_to'
          ? sql`coalesce(o.valid_to, 'infinity'::timestamptz)`
          : condition.field === 'valid_from'
            ? sql`coalesce(o.valid_from, '-infinity'::timestamptz)`
            : sql`${column} collate "C"`
      return sql`${ordered} ${OPERATOR_SQL[condition.op]} ${value}`
    }
    case 'list': {
      const link = LINKS[condition.field]
      const matching = sql`from ${link.table} l
        where l.offer_template_id = o.id and ${link.code} = any(${textArray(condition.values)})`
      if (condition.match === 'any') return sql`exists (select 1 ${matching})`
      if (condition.match === 'none') return sql`not exists (select 1 ${matching})`
      return sql`(select count(distinct ${link.code}) ${matching}) = ${new Set(condition.values).size}`
    }
  }
}

function whereSql(conditions: readonly Condition[], timeZone: string): SQL {
  return conditions.length === 0
    ? sql`true`
    : sql.join(
        conditions.map((c) => sql`(${conditionSql(c, timeZone)})`),
        sql` and `,
      )
}

const SORT_SQL: Record<SortField, SQL> = {
  code: sql`o.code collate "C"`,
  name: sql`o.name collate "C"`,
  description: sql`o.description collate "C"`,
  status: sql`array_position(${textArray(OFFER_STATUSES)}, o.life_cycle_status)`,
  valid_from: sql`o.valid_from`,
  valid_to: sql`o.valid_to`,
}

export interface OfferQuery {
  conditions: readonly Condition[]
  timeZone: string
}

export async function countOffers(db: Db, query: OfferQuery): Promise<number> {
  const found = await one<{ n: string }>(
    db,
    sql`select count(*)::text as n from offer_template o where ${whereSql(query.conditions, query.timeZone)}`,
  )
  return Number(found?.n ?? 0)
}

/** A page of offers in the given order (which ends with the code, so it is total and pages are stable). */
export async function findOffers(
  db: Db,
  query: OfferQuery & { sort: readonly SortKey[]; offset: number; limit: number },
): Promise<OfferRow[]> {
  const order = sql.join(
    query.sort.map((k) => sql`${SORT_SQL[k.field]} ${k.descending ? sql`desc` : sql`asc`}`),
    sql`, `,
  )
  const found = await rows<{ j: string }>(
    db,
    sql`select ${ROW_JSON} as j from offer_template o where ${whereSql(query.conditions, query.timeZone)}
      order by ${order} limit ${query.limit} offset ${query.offset}`,
  )
  return found.map((r) => JSON.parse(r.j) as OfferRow)
}

export async function findOffer(db: Db, code: string): Promise<OfferRow | undefined> {
  const found = await one<{ j: string }>(db, sql`select ${ROW_JSON} as j from offer_template o where o.code = ${code}`)
  return found ? (JSON.parse(found.j) as OfferRow) : undefined
}

export async function offerExists(db: Db, code: string): Promise<boolean> {
  return (await one(db, sql`select 1 from offer_template where code = ${code}`)) !== undefined
}

/** A product with every version (days as `yyyy-MM-dd`) and the charges of each. */
export interface ProductRow {
  code: string
  name: string | null
  product_line: string | null
  versions: {
    version: number
    status: string
    validFrom: string | null
    validTo: string | null
    charge_codes: string[]
  }[]
}

export async function productsByCode(db: Db, codes: readonly string[]): Promise<Map<string, ProductRow>> {
  if (codes.length === 0) return new Map()
  const found = await rows<{ j: string }>(
    db,
    sql`select json_build_object('code', p.code, 'name', p.name, 'product_line', p.product_line,
      'versions', coalesce((
        select json_agg(json_build_object('version', v.version, 'status', v.status,
          'validFrom', to_char(v.valid_from, 'YYYY-MM-DD'), 'validTo', to_char(v.valid_to, 'YYYY-MM-DD'),
          'charge_codes', coalesce((
            select json_agg(ch.code order by ch.code) from product_version_charge vc
            join charge_template ch on ch.id = vc.charge_id where vc.product_version_id = v.id), '[]'::json))
          order by v.version)
        from product_version v where v.product_id = p.id), '[]'::json))::text as j
      from product p where p.code = any(${textArray(codes)})`,
  )
  const products = found.map((r) => JSON.parse(r.j) as ProductRow)
  return new Map(products.map((p) => [p.code, p]))
}
