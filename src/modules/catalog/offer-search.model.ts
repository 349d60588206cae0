/**
 * What a search of the offers can ask of the catalog's offer tables (the second offer interface, module offers,
 * parses its query string into these): sort keys, and conditions over text, instant and code-list fields.
 */
import type { OfferStatus } from './offer-status.model.ts'

/** The fields an offer list sorts by (the code always ends the order). */
export const SORT_KEYS = ['code', 'name', 'description', 'status', 'valid_from', 'valid_to'] as const
export type SortField = (typeof SORT_KEYS)[number]
export interface SortKey {
  readonly field: SortField
  readonly descending: boolean
}

export const TEXT_FIELDS = ['code', 'name', 'description'] as const
export const INSTANT_FIELDS = ['valid_from', 'valid_to'] as const
export const LIST_FIELDS = ['category_codes', 'seller_codes', 'product_codes'] as const
export type TextField = (typeof TEXT_FIELDS)[number]
export type InstantField = (typeof INSTANT_FIELDS)[number]
export type ListField = (typeof LIST_FIELDS)[number]
export type Comparison = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'

/**
 * One condition of a search, checked and typed. Text compares exactly (`contains`: a substring, ignoring case);
 * instants compare as instants (a date is the start of that day in the tenant time zone; an absent `valid_to` is
 * open-ended, an absent `valid_from` since always); a status word names its backend statuses; a list field matches
 * when it holds all, any or none of the codes.
 */
export type Condition =
  | { kind: 'compare'; field: TextField | InstantField; op: Comparison; value: string | null }
  | { kind: 'contains'; field: TextField; value: string }
  | { kind: 'oneOf'; field: TextField | InstantField; values: string[] }
  | { kind: 'status'; statuses: readonly OfferStatus[]; negate: boolean }
  | { kind: 'list'; field: ListField; match: 'all' | 'any' | 'none'; values: string[] }
