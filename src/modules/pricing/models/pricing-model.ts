import type { Decimal } from 'decimal.js'

/** What a price is computed from: the quantity rated, the order's attribute values and who is being rated. */
export interface RatingInput {
  /** The quantity rated (usage volume or ordered quantity). */
  quantity: Decimal
  /** Attribute values of the order product, by attribute code. */
  attributes: Readonly<Record<string, string | null | undefined>>
  charge: { code: string; type?: string }
  subscription?: { code: string; date: string }
  offer?: { code: string }
  product?: { code: string }
}

/**
 * A unit price with a sentence explaining where it came from (kept on rated lines). The sentence is written when it is
 * first read: a preview never reads it, so it costs nothing there.
 */
export interface PricedUnit {
  /** Rounded HALF_UP to 12 decimals (DECISIONS "Money and quantities"). */
  readonly unitPrice: Decimal
  readonly explanation: string
  /** MATRIX: the priority of the row that matched. */
  matchedRow?: number
}
