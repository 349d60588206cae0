/**
 * The catalog rows a usage reservation's statements join (one round trip, the same text every time, so each stays
 * one prepared statement): the offer template `ot` of a subscription, the charge template `ct` and product `p` of a
 * usage charge instance, and the counter template `t` with its calendar `c`. Each join names its alias; the columns
 * and conditions beside it read through that alias.
 */
import { sql, type SQL } from 'drizzle-orm'

/**
 * Joins the offer template `ot` of `offerTemplateId` (an SQL expression over the statement's row); a left join when
 * `optional` (a row without an offer keeps its place, `ot` columns null).
 */
export const offerTemplateJoin = (offerTemplateId: SQL, optional = false): SQL =>
  optional
    ? sql`left join offer_template ot on ot.id = ${offerTemplateId}`
    : sql`join offer_template ot on ot.id = ${offerTemplateId}`

/** The code of the offer template `offerTemplateJoin` joined. */
export const offerCodeColumn = sql`ot.code`

/** Joins the charge template `ct` of `chargeId`. */
export const chargeTemplateJoin = (chargeId: SQL): SQL => sql`join charge_template ct on ct.id = ${chargeId}`

/** The counter template of the charge template `chargeTemplateJoin` joined (null: none). */
export const chargeCounterTemplateColumn = sql`ct.counter_template_id`

/**
 * Whether the charge template `ct` matches a usage line's `param1`: a charge without filterParam1 matches any, one
 * with it only its value.
 */
export const chargeMatchesParam1 = (param1: SQL): SQL =>
  sql`(coalesce(ct.filter_param1, '') = '' or ct.filter_param1 = ${param1})`

/** True for a charge template `ct` without filterParam1: in `order by`, filtered charges come first. */
export const chargeUnfiltered = sql`(coalesce(ct.filter_param1, '') = '')`

/** Left-joins the product `p` of `productId`. */
export const productJoin = (productId: SQL): SQL => sql`left join product p on p.id = ${productId}`

/** The code of the product `productJoin` joined. */
export const productCodeColumn = sql`p.code`

export interface CounterTemplateRow {
  readonly id: number
  readonly code: string
  readonly ceiling: string
  readonly calendar: {
    calendarType: 'PERIOD' | 'YEARLY'
    periodUnit: 'DAY' | 'MONTH' | null
    periodLength: number | null
    referenceDate: string | null
    days: string[] | null
  }
}

/** Left-joins the counter template `t` of `counterTemplateId` and its calendar `c`. */
export const counterTemplateJoins = (counterTemplateId: SQL): SQL =>
  sql`left join counter_template t on t.id = ${counterTemplateId}
      left join calendar c on c.id = t.calendar_id`

/** The `ct_`-prefixed columns of the counter template `counterTemplateJoins` joined. */
export const counterTemplateColumns = sql`t.id as ct_id, t.code as ct_code, t.ceiling::text as ct_ceiling,
  c.calendar_type as ct_calendar_type, c.period_unit as ct_period_unit, c.period_length as ct_period_length,
  to_char(c.reference_date, 'YYYY-MM-DD') as ct_reference_date, c.days as ct_days`

/** The counter template of a row selected with `counterTemplateColumns`, or undefined when none was joined. */
export function counterTemplateOf(r: Record<string, unknown>): CounterTemplateRow | undefined {
  if (r.ct_id === null) return undefined
  return {
    id: Number(r.ct_id),
    code: r.ct_code as string,
    ceiling: r.ct_ceiling as string,
    calendar: {
      calendarType: r.ct_calendar_type as 'PERIOD' | 'YEARLY',
      periodUnit: r.ct_period_unit as 'DAY' | 'MONTH' | null,
      periodLength: r.ct_period_length === null ? null : Number(r.ct_period_length),
      referenceDate: r.ct_reference_date as string | null,
      days: r.ct_days as string[] | null,
    },
  }
}
