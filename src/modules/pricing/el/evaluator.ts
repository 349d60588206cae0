import { Decimal } from 'decimal.js'
import type { BinaryOperator, Formula, Node } from './ast.ts'
import { FormulaError } from './formula-error.ts'
import {
  checked,
  describe,
  ElDecimal,
  isDecimal,
  isEmpty,
  isMap,
  toBoolean,
  toNumber,
  type ElMap,
  type ElValue,
} from './values.ts'

/** The largest scale `round(x, scale)` accepts: unit prices keep 12 decimals. */
const MAX_ROUND_SCALE = 12

function member(object: ElValue, key: ElValue, position: number): ElValue {
  if (object === null) return null
  if (isMap(object)) {
    if (key === null) return null
    const name = isDecimal(key)
      ? key.toString()
      : typeof key === 'string' || typeof key === 'boolean'
        ? String(key)
        : undefined
    if (name === undefined) throw new FormulaError(`${describe(key)} cannot be used as a property name`, position)
    // A Map lookup: a name such as __proto__ or constructor is just an absent key.
    return object.get(name) ?? null
  }
  if (Array.isArray(object)) {
    const index = toNumber(key, position)
    if (!index.isInteger()) throw new FormulaError('a list index must be an integer', position)
    const list = object as readonly ElValue[]
    return index.isNegative() || index.gte(list.length) ? null : (list[index.toNumber()] ?? null)
  }
  throw new FormulaError(`cannot read a property of ${describe(object)}`, position)
}

function compare(operator: BinaryOperator, left: ElValue, right: ElValue, position: number): boolean {
  if (operator === '==' || operator === '!=') {
    const equal = equals(left, right, position)
    return operator === '==' ? equal : !equal
  }
  if (left === null || right === null) return false
  let order: number
  if (isDecimal(left) || isDecimal(right)) {
    order = toNumber(left, position).comparedTo(toNumber(right, position))
  } else if (typeof left === 'string' && typeof right === 'string') {
    order = left < right ? -1 : left > right ? 1 : 0
  } else {
    throw new FormulaError(`cannot order ${describe(left)} and ${describe(right)}`, position)
  }
  switch (operator) {
    case '<':
      return order < 0
    case '<=':
      return order <= 0
    case '>':
      return order > 0
    default:
      return order >= 0
  }
}

function equals(left: ElValue, right: ElValue, position: number): boolean {
  if (left === null || right === null) return left === right
  if (isDecimal(left) || isDecimal(right)) return toNumber(left, position).eq(toNumber(right, position))
  if (typeof left === 'boolean' || typeof right === 'boolean') {
    return toBoolean(left, position) === toBoolean(right, position)
  }
  if (typeof left === 'string' && typeof right === 'string') return left === right
  throw new FormulaError(`cannot compare ${describe(left)} and ${describe(right)}`, position)
}

function arithmetic(
  operator: BinaryOperator,
  left: ElValue,
  right: ElValue,
  positions: { operator: number; left: number; right: number },
): Decimal {
  const position = positions.operator
  const a = toNumber(left, positions.left)
  const b = toNumber(right, positions.right)
  switch (operator) {
    case '+':
      return checked(a.plus(b), position)
    case '-':
      return checked(a.minus(b), position)
    case '*':
      return checked(a.times(b), position)
    case '/':
      if (b.isZero()) throw new FormulaError('division by zero', position)
      return checked(a.dividedBy(b), position)
    default:
      if (b.isZero()) throw new FormulaError('modulo by zero', position)
      return checked(a.modulo(b), position)
  }
}

function call(node: Extract<Node, { kind: 'call' }>, scope: ElMap): Decimal {
  const args = node.args.map((arg) => toNumber(evaluateNode(arg, scope), startOf(arg)))
  const first = args[0]!
  switch (node.name) {
    case 'min':
      return args.reduce((a, b) => (b.lessThan(a) ? b : a))
    case 'max':
      return args.reduce((a, b) => (b.greaterThan(a) ? b : a))
    case 'abs':
      return first.abs()
    case 'ceil':
      return first.ceil()
    case 'floor':
      return first.floor()
    case 'round': {
      const scale = args[1] ?? new ElDecimal(0)
      if (!scale.isInteger() || scale.isNegative() || scale.greaterThan(MAX_ROUND_SCALE)) {
        throw new FormulaError(`round scale must be an integer from 0 to ${MAX_ROUND_SCALE}`, node.args[1]!.position)
      }
      return first.toDecimalPlaces(scale.toNumber(), Decimal.ROUND_HALF_UP)
    }
  }
}

/** Where an operand begins in the text: an operand error points there rather than at its inner operator. */
function startOf(node: Node): number {
  switch (node.kind) {
    case 'member':
      return startOf(node.object)
    case 'binary':
      return startOf(node.left)
    case 'conditional':
      return startOf(node.test)
    default:
      return node.position
  }
}

/** Evaluates a node. No loops and no calls outside the six functions: time is linear in the size of the tree. */
export function evaluateNode(node: Node, scope: ElMap): ElValue {
  switch (node.kind) {
    case 'literal':
      return node.value
    case 'variable': {
      const value = scope.get(node.name)
      if (value === undefined) throw new FormulaError(`unknown variable ${node.name}`, node.position)
      return value
    }
    case 'member':
      return member(evaluateNode(node.object, scope), evaluateNode(node.property, scope), node.position)
    case 'call':
      return call(node, scope)
    case 'unary': {
      const operand = evaluateNode(node.operand, scope)
      if (node.operator === 'empty') return isEmpty(operand)
      if (node.operator === '!') return !toBoolean(operand, startOf(node.operand))
      return toNumber(operand, startOf(node.operand)).negated()
    }
    case 'conditional':
      return toBoolean(evaluateNode(node.test, scope), startOf(node.test))
        ? evaluateNode(node.consequent, scope)
        : evaluateNode(node.alternate, scope)
    case 'binary': {
      if (node.operator === '&&' || node.operator === '||') {
        const left = toBoolean(evaluateNode(node.left, scope), startOf(node.left))
        if (node.operator === '&&' ? !left : left) return left
        return toBoolean(evaluateNode(node.right, scope), startOf(node.right))
      }
      const left = evaluateNode(node.left, scope)
      const right = evaluateNode(node.right, scope)
      if (['+', '-', '*', '/', '%'].includes(node.operator)) {
        return arithmetic(node.operator, left, right, {
          operator: node.position,
          left: startOf(node.left),
          right: startOf(node.right),
        })
      }
      return compare(node.operator, left, right, node.position)
    }
  }
}

/** The value of a formula in a scope (variable name → value). */
export function evaluate(formula: Formula, scope: ElMap): ElValue {
  return evaluateNode(formula.ast, scope)
}

/** The number a formula yields; anything else (null, a boolean, a non-numeric string) is a formula error. */
export function evaluateNumber(formula: Formula, scope: ElMap): Decimal {
  const value = evaluate(formula, scope)
  if (value === null) throw new FormulaError('the formula yielded no value (null)', startOf(formula.ast))
  if (typeof value === 'boolean' || isMap(value) || Array.isArray(value)) {
    throw new FormulaError(`the formula must yield a number, not ${describe(value)}`, startOf(formula.ast))
  }
  // Adding zero turns a negative zero into zero.
  return toNumber(value, startOf(formula.ast)).plus(0)
}
