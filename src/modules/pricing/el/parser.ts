import type { BinaryOperator, Formula, FunctionName, Node } from './ast.ts'
import { FormulaError } from './formula-error.ts'
import { tokenize, type Token } from './lexer.ts'
import { decimalOf } from './values.ts'

/** Longest formula accepted, in characters. */
export const MAX_FORMULA_LENGTH = 2000
/** Deepest nesting of parentheses, brackets, calls, conditionals and unary operators. */
export const MAX_NESTING = 64
/** Tallest syntax tree (long operator chains included), which bounds the evaluator's recursion. */
export const MAX_TREE_HEIGHT = 256

/** The functions and how many arguments each takes. */
export const FUNCTIONS: Readonly<Record<FunctionName, { min: number; max: number }>> = {
  min: { min: 1, max: 100 },
  max: { min: 1, max: 100 },
  abs: { min: 1, max: 1 },
  round: { min: 1, max: 2 },
  ceil: { min: 1, max: 1 },
  floor: { min: 1, max: 1 },
}

const isFunctionName = (name: string): name is FunctionName => Object.hasOwn(FUNCTIONS, name)

const WORD_OPERATORS: Readonly<Record<string, BinaryOperator>> = {
  and: '&&',
  or: '||',
  eq: '==',
  ne: '!=',
  lt: '<',
  le: '<=',
  gt: '>',
  ge: '>=',
  div: '/',
  mod: '%',
}

/** Binary operators by precedence level, loosest first (EL: or, and, equality, relational, additive, multiplicative). */
const LEVELS: readonly (readonly BinaryOperator[])[] = [
  ['||'],
  ['&&'],
  ['==', '!='],
  ['<', '<=', '>', '>='],
  ['+', '-'],
  ['*', '/', '%'],
]

export interface ParseOptions {
  /** The variable names the context provides; any other name is an error at parse time. */
  variables: readonly string[]
}

function describeToken(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the formula'
    case 'string':
      return 'a string'
    case 'number':
      return `number ${token.text.length > 20 ? `${token.text.slice(0, 20)}…` : token.text}`
    default:
      return `'${token.text}'`
  }
}

/**
 * Parses `#{ expression }` (whitespace allowed around it) into a syntax tree. Hand-written recursive descent with
 * bounded length, nesting and tree height; throws only FormulaError, positioned at the offending character.
 */
export function parseFormula(source: string, options: ParseOptions): Formula {
  if (source.length > MAX_FORMULA_LENGTH) {
    throw new FormulaError(`formula longer than ${MAX_FORMULA_LENGTH} characters`, MAX_FORMULA_LENGTH)
  }
  let start = 0
  while (start < source.length && /\s/.test(source[start]!)) start++
  if (!source.startsWith('#{', start)) throw new FormulaError('expected a formula of the form #{...}', start)
  const tokens = tokenize(source, start + 2)
  const variables = new Set(options.variables)
  const heights = new WeakMap<Node, number>()
  let index = 0
  let nesting = 0

  const peek = (): Token => tokens[index]!
  const next = (): Token => tokens[index++]!
  const isOperator = (token: Token, text: string) => token.kind === 'operator' && token.text === text
  const expect = (text: string, what: string): Token => {
    const token = next()
    if (!isOperator(token, text))
      throw new FormulaError(`expected ${what}, found ${describeToken(token)}`, token.position)
    return token
  }
  const enter = (token: Token) => {
    if (++nesting > MAX_NESTING)
      throw new FormulaError(`formula nested deeper than ${MAX_NESTING} levels`, token.position)
  }
  const leave = () => {
    nesting--
  }
  /** Records a node's height; a tree taller than the bound is refused, so evaluation recursion stays shallow. */
  const node = (made: Node, ...children: Node[]): Node => {
    const height = 1 + Math.max(0, ...children.map((c) => heights.get(c) ?? 1))
    if (height > MAX_TREE_HEIGHT) throw new FormulaError('formula too complex (operator chain too long)', made.position)
    heights.set(made, height)
    return made
  }

  function binaryOperatorOf(token: Token): BinaryOperator | undefined {
    if (token.kind === 'operator') return LEVELS.flat().find((op) => op === token.text)
    if (token.kind === 'keyword') return WORD_OPERATORS[token.text]
    return undefined
  }

  function parseConditional(): Node {
    const first = peek()
    enter(first)
    const test = parseLevel(0)
    let result = test
    if (isOperator(peek(), '?')) {
      const question = next()
      const consequent = parseConditional()
      expect(':', "':' of the conditional")
      const alternate = parseConditional()
      result = node(
        { kind: 'conditional', position: question.position, test, consequent, alternate },
        test,
        consequent,
        alternate,
      )
    }
    leave()
    return result
  }

  function parseLevel(level: number): Node {
    const operators = LEVELS[level]
    if (!operators) return parseUnary()
    let left = parseLevel(level + 1)
    for (;;) {
      const token = peek()
      if (token.kind === 'keyword' && token.text === 'instanceof') {
        throw new FormulaError('instanceof is not supported', token.position)
      }
      const operator = binaryOperatorOf(token)
      if (operator === undefined || !operators.includes(operator)) return left
      next()
      const right = parseLevel(level + 1)
      left = node({ kind: 'binary', position: token.position, operator, left, right }, left, right)
    }
  }

  function parseUnary(): Node {
    const token = peek()
    const operator = isOperator(token, '-')
      ? '-'
      : isOperator(token, '!') || (token.kind === 'keyword' && token.text === 'not')
        ? '!'
        : token.kind === 'keyword' && token.text === 'empty'
          ? 'empty'
          : undefined
    if (operator === undefined) return parsePostfix()
    next()
    enter(token)
    const operand = parseUnary()
    leave()
    return node({ kind: 'unary', position: token.position, operator, operand }, operand)
  }

  function parsePostfix(): Node {
    let result = parsePrimary()
    for (;;) {
      const token = peek()
      if (isOperator(token, '.')) {
        next()
        const name = next()
        if (name.kind !== 'identifier' && name.kind !== 'keyword') {
          throw new FormulaError(`expected a property name after '.', found ${describeToken(name)}`, name.position)
        }
        if (isOperator(peek(), '(')) throw new FormulaError('method calls are not allowed', peek().position)
        const property = node({ kind: 'literal', position: name.position, value: name.text })
        result = node({ kind: 'member', position: token.position, object: result, property }, result, property)
      } else if (isOperator(token, '[')) {
        next()
        const property = parseConditional()
        expect(']', "']'")
        if (isOperator(peek(), '(')) throw new FormulaError('method calls are not allowed', peek().position)
        result = node({ kind: 'member', position: token.position, object: result, property }, result, property)
      } else if (isOperator(token, '(')) {
        throw new FormulaError('only the functions min, max, abs, round, ceil and floor can be called', token.position)
      } else {
        return result
      }
    }
  }

  function parseCall(name: Token): Node {
    if (!isFunctionName(name.text)) {
      throw new FormulaError(
        `unknown function ${name.text} (available: ${Object.keys(FUNCTIONS).join(', ')})`,
        name.position,
      )
    }
    const open = next()
    enter(open)
    const args: Node[] = []
    if (!isOperator(peek(), ')')) {
      for (;;) {
        args.push(parseConditional())
        if (!isOperator(peek(), ',')) break
        next()
      }
    }
    expect(')', "')' or ','")
    leave()
    const arity = FUNCTIONS[name.text]
    if (args.length < arity.min || args.length > arity.max) {
      const expected =
        arity.min === arity.max
          ? `${arity.min}`
          : arity.max >= 100
            ? `at least ${arity.min}`
            : `${arity.min} or ${arity.max}`
      throw new FormulaError(
        `${name.text} takes ${expected} argument${expected === '1' ? '' : 's'}, not ${args.length}`,
        name.position,
      )
    }
    return node({ kind: 'call', position: name.position, name: name.text, args }, ...args)
  }

  function parsePrimary(): Node {
    const token = next()
    switch (token.kind) {
      case 'number':
        return node({ kind: 'literal', position: token.position, value: decimalOf(token.text, token.position) })
      case 'string':
        return node({ kind: 'literal', position: token.position, value: token.text })
      case 'keyword':
        if (token.text === 'true' || token.text === 'false') {
          return node({ kind: 'literal', position: token.position, value: token.text === 'true' })
        }
        if (token.text === 'null') return node({ kind: 'literal', position: token.position, value: null })
        if (token.text === 'instanceof') throw new FormulaError('instanceof is not supported', token.position)
        throw new FormulaError(`unexpected '${token.text}'`, token.position)
      case 'identifier':
        if (isOperator(peek(), '(')) return parseCall(token)
        if (!variables.has(token.text)) {
          throw new FormulaError(
            `unknown variable ${token.text} (available: ${[...variables].join(', ')})`,
            token.position,
          )
        }
        return node({ kind: 'variable', position: token.position, name: token.text })
      case 'operator':
        if (token.text === '(') {
          const inner = parseConditional()
          expect(')', "')'")
          return inner
        }
        throw new FormulaError(`unexpected ${describeToken(token)}`, token.position)
      case 'end':
        throw new FormulaError('unexpected end of the formula (missing closing })', token.position)
    }
  }

  if (isOperator(peek(), '}')) throw new FormulaError('empty formula', peek().position)
  const ast = parseConditional()
  const close = next()
  if (!isOperator(close, '}')) {
    throw new FormulaError(
      close.kind === 'end'
        ? 'missing closing } of the formula'
        : `unexpected ${describeToken(close)} (expected an operator or the closing })`,
      close.position,
    )
  }
  const rest = next()
  if (rest.kind !== 'end') throw new FormulaError('unexpected text after the closing } of the formula', rest.position)
  return { source, ast }
}
