import type {
  HqlAggregate,
  HqlCompare,
  HqlCondition,
  HqlExpr,
  HqlFunction,
  HqlJoin,
  HqlQuery,
  HqlSelectItem,
  Position,
} from './ast.ts'
import { HqlError, tokenize, type Token } from './lexer.ts'

const FUNCTIONS: Record<string, { fn: HqlFunction; min: number; max: number }> = {
  LOWER: { fn: 'LOWER', min: 1, max: 1 },
  UPPER: { fn: 'UPPER', min: 1, max: 1 },
  COALESCE: { fn: 'COALESCE', min: 2, max: 10 },
  CONCAT: { fn: 'CONCAT', min: 2, max: 10 },
  YEAR: { fn: 'YEAR', min: 1, max: 1 },
  MONTH: { fn: 'MONTH', min: 1, max: 1 },
}
const AGGREGATES = new Set<HqlAggregate>(['COUNT', 'SUM', 'AVG', 'MIN', 'MAX'])
const COMPARES = new Set(['=', '<>', '<', '<=', '>', '>='])
/** Nesting of parentheses and NOT: a hostile text cannot exhaust the stack. */
const MAX_NESTING = 64
const MAX_ITEMS = 100

/**
 * Parses the Deep subset (docs/decisions.md, "Workbench, Deep mode"): `[select …] from <Entity> [[as] alias] [join …] [where …]
 * [group by …] [having …] [order by …]`. Anything outside it is an error naming the offending token, its line and
 * column, and what was expected there.
 */
export function parseHql(text: string): HqlQuery {
  const parser = new Parser(text, tokenize(text))
  return parser.query()
}

/** An expression read where a condition could have started: `(c.amount)` before `> 5`. */
interface Bare {
  readonly bare: HqlExpr
}

class Parser {
  private readonly text: string
  private readonly tokens: Token[]
  private index = 0
  private depth = 0

  constructor(text: string, tokens: Token[]) {
    this.text = text
    this.tokens = tokens
  }

  private get current(): Token {
    return this.tokens[this.index]!
  }

  private advance(): Token {
    const token = this.current
    if (token.kind !== 'end') this.index++
    return token
  }

  private fail(expected: string, token: Token = this.current): never {
    const what = token.kind === 'end' ? 'end of query' : `'${token.raw}'`
    throw new HqlError(`Unexpected ${what} at line ${token.line}, column ${token.column}: expected ${expected}`, token)
  }

  private isKeyword(...words: string[]): boolean {
    return this.current.kind === 'keyword' && words.includes(this.current.text)
  }

  private isSymbol(symbol: string): boolean {
    return this.current.kind === 'symbol' && this.current.text === symbol
  }

  private accept(word: string): boolean {
    if (this.isKeyword(word)) {
      this.advance()
      return true
    }
    return false
  }

  private expectKeyword(word: string): void {
    if (!this.accept(word)) this.fail(`'${word.toLowerCase()}'`)
  }

  private expectSymbol(symbol: string): void {
    if (!this.isSymbol(symbol)) this.fail(`'${symbol}'`)
    this.advance()
  }

  private identifier(what: string): Token {
    if (this.current.kind !== 'identifier') this.fail(what)
    return this.advance()
  }

  private nest<T>(parse: () => T): T {
    if (++this.depth > MAX_NESTING) throw new HqlError(`The query nests more than ${MAX_NESTING} levels`, this.current)
    try {
      return parse()
    } finally {
      this.depth--
    }
  }

  query(): HqlQuery {
    const first = this.current
    if (!this.isKeyword('SELECT', 'FROM')) this.fail("'select' or 'from'", first)
    let select: HqlSelectItem[] | undefined
    let distinct = false
    if (this.accept('SELECT')) {
      distinct = this.accept('DISTINCT')
      select = this.list(() => this.selectItem())
    }
    this.expectKeyword('FROM')
    const entityToken = this.identifier('an entity name')
    const from = { entity: entityToken.text, alias: this.alias(), at: pos(entityToken) }
    const joins: HqlJoin[] = []
    while (this.isKeyword('JOIN', 'INNER', 'LEFT')) joins.push(this.join())
    const where = this.accept('WHERE') ? this.condition() : undefined
    let groupBy: HqlExpr[] = []
    if (this.accept('GROUP')) {
      this.expectKeyword('BY')
      groupBy = this.list(() => this.expr())
    }
    const having = this.accept('HAVING') ? this.condition() : undefined
    let orderBy: { expr: HqlExpr; descending: boolean }[] = []
    if (this.accept('ORDER')) {
      this.expectKeyword('BY')
      orderBy = this.list(() => {
        const expr = this.expr()
        const descending = this.accept('DESC')
        if (!descending) this.accept('ASC')
        return { expr, descending }
      })
    }
    if (this.current.kind !== 'end') {
      const expected = [
        ...(where || groupBy.length > 0 || having || orderBy.length > 0 ? [] : ["'where'", "'join'"]),
        ...(groupBy.length > 0 || having || orderBy.length > 0 ? [] : ["'group by'"]),
        ...(orderBy.length > 0 ? [] : ["'order by'"]),
        'the end of the query',
      ]
      this.fail(expected.join(', '))
    }
    return { select, distinct, from, joins, where, groupBy, having, orderBy }
  }

  private list<T>(item: () => T): T[] {
    const items = [item()]
    while (this.isSymbol(',')) {
      this.advance()
      items.push(item())
      if (items.length > MAX_ITEMS) throw new HqlError(`A list holds at most ${MAX_ITEMS} items`, this.current)
    }
    return items
  }

  /** `[as] alias` after an entity, a join or a select item. */
  private alias(): string | undefined {
    if (this.accept('AS')) return this.identifier('an alias').text
    if (this.current.kind === 'identifier') return this.advance().text
    return undefined
  }

  private selectItem(): HqlSelectItem {
    const start = this.current
    const expr = this.expr()
    const end = this.tokens[this.index - 1]!
    // An alias without `as` is a word followed by ',' or 'from': anything else is a mistake to point at.
    const next = this.tokens[this.index + 1]
    const bareAlias =
      this.current.kind === 'identifier' &&
      next !== undefined &&
      ((next.kind === 'symbol' && next.text === ',') || (next.kind === 'keyword' && next.text === 'FROM'))
    const alias = this.isKeyword('AS') || bareAlias ? this.alias() : undefined
    if (this.current.kind === 'identifier') this.fail("'from'")
    return { expr, key: alias ?? this.text.slice(start.start, end.end) }
  }

  private join(): HqlJoin {
    const start = this.current
    let outer = false
    if (this.accept('LEFT')) {
      outer = true
      this.accept('OUTER')
    } else this.accept('INNER')
    this.expectKeyword('JOIN')
    const first = this.identifier('an alias followed by a relation (c.customerAccounts)')
    const path = [first.text]
    while (this.isSymbol('.')) {
      this.advance()
      path.push(this.identifier('a relation name').text)
    }
    if (path.length < 2) this.fail("'.' and a relation name")
    return { outer, path, alias: this.alias(), at: pos(start) }
  }

  condition(): HqlCondition {
    const parsed = this.orCondition(false)
    return parsed as HqlCondition
  }

  /**
   * Conditions; inside parentheses (`allowBare`) what is read may turn out to be an expression compared afterwards
   * (`(c.amount) > 5`), returned as Bare. One pass, no backtracking, so nesting costs linear time.
   */
  private orCondition(allowBare: boolean): HqlCondition | Bare {
    return this.nest(() => {
      const first = this.andCondition(allowBare)
      if (!this.isKeyword('OR')) return first
      const items = [this.real(first)]
      while (this.accept('OR')) items.push(this.real(this.andCondition(false)))
      return { kind: 'or', items }
    })
  }

  private andCondition(allowBare: boolean): HqlCondition | Bare {
    const first = this.notCondition(allowBare)
    if (!this.isKeyword('AND')) return first
    const items = [this.real(first)]
    while (this.accept('AND')) items.push(this.real(this.notCondition(false)))
    return { kind: 'and', items }
  }

  private notCondition(allowBare: boolean): HqlCondition | Bare {
    if (this.accept('NOT')) return this.nest(() => ({ kind: 'not', item: this.real(this.notCondition(false)) }))
    return this.predicate(allowBare)
  }

  /** A condition where one is needed: an expression alone is not one. */
  private real(parsed: HqlCondition | Bare): HqlCondition {
    if ('bare' in parsed) this.fail('a comparison (=, <>, <, <=, >, >=, like, in, between, is null)')
    return parsed
  }

  private predicate(allowBare: boolean): HqlCondition | Bare {
    let left: HqlExpr
    if (this.isSymbol('(')) {
      this.advance()
      const inner = this.orCondition(true)
      this.expectSymbol(')')
      if (!('bare' in inner)) return inner
      left = inner.bare
    } else left = this.expr()
    if (this.current.kind === 'symbol' && COMPARES.has(this.current.text)) {
      const op = this.advance().text as HqlCompare
      return { kind: 'compare', left, op, right: this.expr() }
    }
    const negated = this.accept('NOT')
    if (this.accept('LIKE')) return { kind: 'like', expr: left, pattern: this.expr(), negated }
    if (this.accept('IN')) {
      this.expectSymbol('(')
      const values = this.list(() => this.expr())
      this.expectSymbol(')')
      return { kind: 'in', expr: left, values, negated }
    }
    if (this.accept('BETWEEN')) {
      const low = this.expr()
      this.expectKeyword('AND')
      return { kind: 'between', expr: left, low, high: this.expr(), negated }
    }
    if (negated) this.fail("'like', 'in' or 'between'")
    if (this.accept('IS')) {
      const not = this.accept('NOT')
      this.expectKeyword('NULL')
      return { kind: 'isNull', expr: left, negated: not }
    }
    if (allowBare) return { bare: left }
    this.fail('a comparison (=, <>, <, <=, >, >=, like, in, between, is null)')
  }

  expr(): HqlExpr {
    return this.nest(() => this.term())
  }

  private term(): HqlExpr {
    const token = this.current
    const at = pos(token)
    switch (token.kind) {
      case 'string':
        this.advance()
        return { kind: 'string', value: token.text, at }
      case 'number':
        this.advance()
        return { kind: 'number', text: token.text, at }
      case 'parameter':
        this.advance()
        return { kind: 'parameter', name: token.text, at }
      case 'keyword':
        if (token.text === 'TRUE' || token.text === 'FALSE') {
          this.advance()
          return { kind: 'boolean', value: token.text === 'TRUE', at }
        }
        if (token.text === 'NULL') {
          this.advance()
          return { kind: 'null', at }
        }
        return this.fail('a value, a field or a function')
      case 'symbol':
        if (token.text === '(') {
          this.advance()
          const inner = this.expr()
          this.expectSymbol(')')
          return inner
        }
        return this.fail('a value, a field or a function')
      case 'identifier': {
        this.advance()
        if (this.isSymbol('(')) return this.call(token)
        const segments = [token.text]
        while (this.isSymbol('.')) {
          this.advance()
          segments.push(this.identifier('a field or relation name').text)
        }
        return { kind: 'path', segments, at }
      }
      case 'end':
        return this.fail('a value, a field or a function')
    }
  }

  private call(name: Token): HqlExpr {
    const upper = name.text.toUpperCase()
    const at = pos(name)
    this.expectSymbol('(')
    if (AGGREGATES.has(upper as HqlAggregate)) {
      const fn = upper as HqlAggregate
      if (this.isSymbol('*')) {
        if (fn !== 'COUNT') this.fail('a field (only count takes *)')
        this.advance()
        this.expectSymbol(')')
        return { kind: 'aggregate', fn, arg: undefined, distinct: false, at }
      }
      const distinct = this.accept('DISTINCT')
      const arg = this.expr()
      this.expectSymbol(')')
      return { kind: 'aggregate', fn, arg, distinct, at }
    }
    const known = FUNCTIONS[upper]
    if (!known) {
      throw new HqlError(
        `Unknown function '${name.text}' at line ${name.line}, column ${name.column}: expected lower, upper, coalesce, concat, year, month, count, sum, avg, min or max`,
        name,
      )
    }
    const args = this.list(() => this.expr())
    this.expectSymbol(')')
    if (args.length < known.min || args.length > known.max) {
      const count = known.min === known.max ? `${known.min}` : `${known.min} to ${known.max}`
      throw new HqlError(
        `${name.text} at line ${name.line}, column ${name.column} takes ${count} argument${known.max === 1 ? '' : 's'}`,
        name,
      )
    }
    return { kind: 'call', fn: known.fn, args, at }
  }
}

function pos(token: Token): Position {
  return { line: token.line, column: token.column }
}
