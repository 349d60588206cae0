/**
 * The pricing models behind one interface: the rating engine calls `priceUnit` whatever the model, and gets a unit
 * price with its explanation. Amount = quantity × unit price is the caller's (rating's) business.
 */
import { AppError } from '../../../kernel/errors.ts'
import { FormulaError } from '../el/index.ts'
import { flatUnitPrice, type FlatPricing } from './flat.ts'
import { describeMatrixInput, matrixUnitPrice, type MatrixPricing } from './matrix.ts'
import { formulaUnitPrice, type FormulaPricing } from './formula.ts'
import type { PricedUnit, RatingInput } from './pricing-model.ts'

export type { PricedUnit, RatingInput } from './pricing-model.ts'
export type { FlatPricing } from './flat.ts'
export type { FormulaPricing } from './formula.ts'
export {
  MATRIX_COLUMN_TYPES,
  isRangeColumn,
  matchMatrixRow,
  type MatrixCell,
  type MatrixColumn,
  type MatrixColumnType,
  type MatrixPricing,
  type MatrixRow,
} from './matrix.ts'

export type PricingDefinition = FlatPricing | MatrixPricing | FormulaPricing

/**
 * The unit price of a charge for one rating input. A MATRIX without a matching row is PRICE_NOT_FOUND naming the
 * charge and the attribute values; a formula that cannot be evaluated is INVALID_FORMULA with its position.
 */
export function priceUnit(definition: PricingDefinition, input: RatingInput): PricedUnit {
  switch (definition.model) {
    case 'FLAT':
      return flatUnitPrice(definition)
    case 'MATRIX': {
      const priced = matrixUnitPrice(definition, input)
      if (!priced) {
        throw new AppError(
          'PRICE_NOT_FOUND',
          `No price of charge ${input.charge.code} matches the attribute values ${describeMatrixInput(definition, input.attributes)}`,
        )
      }
      return priced
    }
    case 'FORMULA':
      try {
        return formulaUnitPrice(definition, input)
      } catch (error) {
        if (error instanceof FormulaError) {
          throw new AppError('INVALID_FORMULA', `price_fx of charge ${input.charge.code}: ${error.message}`)
        }
        throw error
      }
    default:
      return unknownModel(definition)
  }
}

function unknownModel(definition: never): never {
  throw new Error(`unknown pricing model ${JSON.stringify(definition)}`)
}
