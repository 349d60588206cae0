/**
 * The only error the formula language throws: a reason and the 0-based character offset in the formula text
 * where the problem is (for a syntax error, where parsing stopped; for an evaluation error, the offending operator
 * or operand).
 */
export class FormulaError extends Error {
  readonly position: number
  readonly reason: string

  constructor(reason: string, position: number) {
    super(`${reason} at position ${position}`)
    this.name = 'FormulaError'
    this.reason = reason
    this.position = position
  }
}
