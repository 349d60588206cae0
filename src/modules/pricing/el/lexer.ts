import { FormulaError } from './formula-error.ts'

export type TokenKind = 'number' | 'string' | 'identifier' | 'keyword' | 'operator' | 'end'

export interface Token {
  readonly kind: TokenKind
  /** The source text of the token (for strings: the decoded value). */
  readonly text: string
  /** 0-based offset of the token's first character in the formula. */
  readonly position: number
}

export const KEYWORDS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'empty',
  'not',
  'and',
  'or',
  'div',
  'mod',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'instanceof',
])

/** Longest first, so `<=` wins over `<`. */
const OPERATORS = [
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '!',
  '?',
  ':',
  '.',
  '[',
  ']',
  '(',
  ')',
  ',',
  '}',
] as const

const UNSUPPORTED: Readonly<Record<string, string>> = {
  '=': 'assignment is not allowed (compare with ==)',
  ';': 'several expressions are not allowed',
  '{': 'set and map literals are not allowed',
  '&': 'unexpected character & (logical and is && or and)',
  '|': 'unexpected character | (logical or is || or or)',
  '#': 'a formula holds one #{...} expression',
  $: 'a formula holds one #{...} expression',
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9'
const isIdentifierStart = (c: string | undefined) =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_')
const isIdentifierPart = (c: string | undefined) => isIdentifierStart(c) || isDigit(c)
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r'

/** Reads a number literal: digits, an optional fraction and an optional exponent (`12`, `0.5`, `.5`, `1e3`). */
function readNumber(text: string, start: number): number {
  let i = start
  while (isDigit(text[i])) i++
  if (text[i] === '.' && (isDigit(text[i + 1]) || i > start)) {
    i++
    while (isDigit(text[i])) i++
  }
  if (text[i] === 'e' || text[i] === 'E') {
    let j = i + 1
    if (text[j] === '+' || text[j] === '-') j++
    if (!isDigit(text[j])) throw new FormulaError('malformed number exponent', i)
    while (isDigit(text[j])) j++
    i = j
  }
  if (isIdentifierStart(text[i])) throw new FormulaError(`unexpected character ${text[i]!} after a number`, i)
  return i
}

/** Reads a quoted string (single or double quotes; escapes \\, \' and \"); returns its end and decoded value. */
function readString(text: string, start: number): { end: number; value: string } {
  const quote = text[start]!
  let value = ''
  let i = start + 1
  while (i < text.length) {
    const c = text[i]!
    if (c === quote) return { end: i + 1, value }
    if (c === '\\') {
      const next = text[i + 1]
      if (next !== '\\' && next !== "'" && next !== '"') {
        throw new FormulaError('unsupported escape in a string (only \\\\, \\\' and \\" are allowed)', i)
      }
      value += next
      i += 2
      continue
    }
    value += c
    i++
  }
  throw new FormulaError('unterminated string', start)
}

/** Splits the text from `start` into tokens, ending with an `end` token at the text's length. */
export function tokenize(text: string, start: number): Token[] {
  const tokens: Token[] = []
  let i = start
  while (i < text.length) {
    const c = text[i]!
    if (isSpace(c)) {
      i++
      continue
    }
    if (isDigit(c) || (c === '.' && isDigit(text[i + 1]))) {
      const end = readNumber(text, i)
      tokens.push({ kind: 'number', text: text.slice(i, end), position: i })
      i = end
      continue
    }
    if (c === "'" || c === '"') {
      const { end, value } = readString(text, i)
      tokens.push({ kind: 'string', text: value, position: i })
      i = end
      continue
    }
    if (isIdentifierStart(c)) {
      let end = i + 1
      while (isIdentifierPart(text[end])) end++
      const word = text.slice(i, end)
      tokens.push({ kind: KEYWORDS.has(word) ? 'keyword' : 'identifier', text: word, position: i })
      i = end
      continue
    }
    const operator = OPERATORS.find((op) => text.startsWith(op, i))
    if (operator) {
      tokens.push({ kind: 'operator', text: operator, position: i })
      i += operator.length
      continue
    }
    const printable = c.length === 1 && c >= ' ' && c <= '~' ? c : `U+${c.codePointAt(0)!.toString(16).toUpperCase()}`
    throw new FormulaError(UNSUPPORTED[c] ?? `unexpected character ${printable}`, i)
  }
  tokens.push({ kind: 'end', text: '', position: text.length })
  return tokens
}
