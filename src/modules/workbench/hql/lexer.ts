/**
 * Tokens of the Deep (HQL) subset. Keywords are matched case-insensitively; every token keeps its 1-based line and
 * column, so an error can point at the text the analyst wrote.
 */

export type TokenKind = 'identifier' | 'keyword' | 'number' | 'string' | 'parameter' | 'symbol' | 'end'

export interface Token {
  readonly kind: TokenKind
  /** Keywords are upper-cased; identifiers and strings as written (strings without quotes, '' unescaped). */
  readonly text: string
  /** The source text of the token, as the analyst wrote it. */
  readonly raw: string
  readonly line: number
  readonly column: number
  /** Offsets in the text: [start, end). */
  readonly start: number
  readonly end: number
}

export const KEYWORDS = new Set([
  'SELECT',
  'FROM',
  'AS',
  'JOIN',
  'INNER',
  'LEFT',
  'OUTER',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'LIKE',
  'IN',
  'BETWEEN',
  'IS',
  'NULL',
  'TRUE',
  'FALSE',
  'GROUP',
  'BY',
  'HAVING',
  'ORDER',
  'ASC',
  'DESC',
  'DISTINCT',
])

/**
 * Words of statements that change data or run code: a Deep query is read-only, so a text using any of them as a
 * word (outside a string literal) is refused whatever the grammar would make of it.
 */
export const FORBIDDEN_WORDS = new Set([
  'UPDATE',
  'DELETE',
  'INSERT',
  'DROP',
  'ALTER',
  'CREATE',
  'TRUNCATE',
  'GRANT',
  'REVOKE',
  'INTO',
  'EXEC',
  'EXECUTE',
  'CALL',
  'MERGE',
  'UPSERT',
  'REPLACE',
  'COPY',
  'LOCK',
  'VACUUM',
  'SET',
])

/** A text that is not Deep HQL, at a position of it. */
export class HqlError extends Error {
  readonly line: number | undefined
  readonly column: number | undefined
  constructor(message: string, at?: { line: number; column: number }) {
    super(message)
    this.line = at?.line
    this.column = at?.column
  }
}

export const MAX_QUERY_LENGTH = 20_000

const SYMBOLS = ['<>', '!=', '<=', '>=', '=', '<', '>', '(', ')', ',', '.', '*']

export function tokenize(text: string): Token[] {
  if (text.length > MAX_QUERY_LENGTH) throw new HqlError(`The query is longer than ${MAX_QUERY_LENGTH} characters`)
  const tokens: Token[] = []
  let i = 0
  let line = 1
  let lineStart = 0
  const at = (index: number) => ({ line, column: index - lineStart + 1 })
  const push = (kind: TokenKind, value: string, start: number, raw: string) =>
    tokens.push({ kind, text: value, raw, ...at(start), start, end: start + raw.length })
  while (i < text.length) {
    const c = text[i]!
    if (c === '\n') {
      i++
      line++
      lineStart = i
      continue
    }
    if (/\s/.test(c)) {
      i++
      continue
    }
    if (c === "'") {
      let value = ''
      let j = i + 1
      for (;;) {
        if (j >= text.length) throw new HqlError('A string literal is not closed', at(i))
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            value += "'"
            j += 2
            continue
          }
          break
        }
        if (text[j] === '\n') throw new HqlError('A string literal may not span lines', at(i))
        value += text[j]!
        j++
      }
      push('string', value, i, text.slice(i, j + 1))
      i = j + 1
      continue
    }
    if (c === ':' && /[A-Za-z_]/.test(text[i + 1] ?? '')) {
      let j = i + 1
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j]!)) j++
      push('parameter', text.slice(i + 1, j), i, text.slice(i, j))
      i = j
      continue
    }
    if (/[0-9]/.test(c)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(text.slice(i))!
      if (/[A-Za-z_]/.test(text[i + match[0].length] ?? ''))
        throw new HqlError(`Unexpected '${text.slice(i, i + match[0].length + 1)}'`, at(i))
      push('number', match[0], i, match[0])
      i += match[0].length
      continue
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j]!)) j++
      const word = text.slice(i, j)
      const upper = word.toUpperCase()
      if (FORBIDDEN_WORDS.has(upper)) throw new HqlError(`${upper} is not allowed: Deep queries are read-only`, at(i))
      push(KEYWORDS.has(upper) ? 'keyword' : 'identifier', KEYWORDS.has(upper) ? upper : word, i, word)
      i = j
      continue
    }
    if (c === '-' && text[i + 1] === '-') throw new HqlError('Comments are not allowed', at(i))
    if (c === '/' && text[i + 1] === '*') throw new HqlError('Comments are not allowed', at(i))
    if (c === ';') throw new HqlError('A Deep query is one statement: ; is not allowed', at(i))
    const symbol = SYMBOLS.find((s) => text.startsWith(s, i))
    if (!symbol) throw new HqlError(`Unexpected '${c}'`, at(i))
    push('symbol', symbol === '!=' ? '<>' : symbol, i, symbol)
    i += symbol.length
  }
  tokens.push({ kind: 'end', text: '', raw: 'end of query', ...at(i), start: i, end: i })
  return tokens
}
