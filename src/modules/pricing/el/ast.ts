import type { Decimal } from 'decimal.js'

export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||'
export type UnaryOperator = '-' | '!' | 'empty'
export type FunctionName = 'min' | 'max' | 'abs' | 'round' | 'ceil' | 'floor'

export type LiteralValue = Decimal | string | boolean | null

/** An immutable syntax tree; every node keeps the offset of its token in the formula, for error messages. */
export type Node =
  | { readonly kind: 'literal'; readonly position: number; readonly value: LiteralValue }
  | { readonly kind: 'variable'; readonly position: number; readonly name: string }
  | { readonly kind: 'member'; readonly position: number; readonly object: Node; readonly property: Node }
  | {
      readonly kind: 'call'
      readonly position: number
      readonly name: FunctionName
      readonly args: readonly Node[]
    }
  | { readonly kind: 'unary'; readonly position: number; readonly operator: UnaryOperator; readonly operand: Node }
  | {
      readonly kind: 'binary'
      readonly position: number
      readonly operator: BinaryOperator
      readonly left: Node
      readonly right: Node
    }
  | {
      readonly kind: 'conditional'
      readonly position: number
      readonly test: Node
      readonly consequent: Node
      readonly alternate: Node
    }

/** A parsed formula: its text and its tree. Parse once (when the draft is saved), evaluate many times. */
export interface Formula {
  readonly source: string
  readonly ast: Node
}
