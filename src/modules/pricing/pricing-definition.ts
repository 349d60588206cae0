/**
 * A stored pricing version as the rating engine's pure definition: FLAT keeps its price, FORMULA its parsed `price_fx`,
 * MATRIX its columns (in position order) and rows (in priority order). Every reader of stored prices builds the
 * definition here, so a price is interpreted one way whether it is evaluated, previewed, placed or rated.
 */
import { money } from '../../kernel/money.ts'
import { parsePriceFormula } from './el/index.ts'
import type { MatrixCell, MatrixColumnType, PricingDefinition } from './models/index.ts'

export interface StoredPricing {
  readonly pricingModel: string
  readonly price: string
  readonly priceFx: string | null
}

export interface StoredMatrixColumn {
  readonly code: string
  readonly type: MatrixColumnType
  readonly position: number
  readonly attributeCode: string
}

export interface StoredMatrixRow {
  readonly priority: number
  readonly price: string
  readonly values: readonly MatrixCell[]
}

export function pricingDefinition(
  version: StoredPricing,
  columns: readonly StoredMatrixColumn[],
  rows: readonly StoredMatrixRow[],
): PricingDefinition {
  switch (version.pricingModel) {
    case 'FORMULA':
      return { model: 'FORMULA', formula: parsePriceFormula(version.priceFx ?? '') }
    case 'MATRIX':
      return {
        model: 'MATRIX',
        columns: columns.map((c) => ({
          code: c.code,
          type: c.type,
          position: c.position,
          attributeCode: c.attributeCode,
        })),
        rows: rows.map((r) => ({ priority: r.priority, price: money(r.price), values: r.values })),
      }
    default:
      return { model: 'FLAT', price: money(version.price) }
  }
}
