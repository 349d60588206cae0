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

/** A unit price with a sentence explaining where it came from (shown by previews and kept on rated lines). */
export interface PricedUnit {
  /** Rounded HALF_UP to 12 decimals (DECISIONS "Money and quantities"). */
  unitPrice: Decimal
  explanation: string
  /** MATRIX: the priority of the row that matched. */
  matchedRow?: number
}
