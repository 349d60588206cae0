import type { EntityRegistry } from '../../kernel/model/index.ts'

/**
 * Raw SQL fragments of `SQL...` and `inSqlList` filters (queryExpert only) are vetted twice before they run:
 *
 * 1. Structure, on the text: the fragment is spliced inside parentheses of a larger statement, so it must keep its
 *    parentheses balanced, cannot end the statement (`;`) or comment the rest out (`--`, `/*`). Literal forms whose
 *    escapes would make this scan disagree with PostgreSQL's lexer (`E'..'`, `U&'..'`, dollar quotes, backslashes)
 *    are refused.
 * 2. Meaning, on PostgreSQL's own parse tree (libpg-query): the parser has already decoded quoting and `U&"..."`
 *    escapes, so `U&"pg\005fclass"` is seen as `pg_class`. Only the node kinds of a read-only expression are
 *    accepted (sub-selects included, no locking clause, no SELECT INTO, no WITH, no bind parameter); every table
 *    must be one the registry exposes to the Query API, in the public schema; every function and type cast must be
 *    on an allowlist of side-effect-free ones.
 *
 * Whatever passes still runs as the restricted query role (no privilege on the secrets schema), read-only.
 */

let loading: Promise<void> | undefined
let parseSync: ((sql: string) => unknown) | undefined

/**
 * Loads PostgreSQL's parser (WebAssembly) once; `sqlFragmentProblem` needs it. Imported on first use: the module
 * reserves about 130 MB of WebAssembly memory as soon as it is loaded, which a server never using raw SQL does not pay.
 */
export function loadSqlParser(): Promise<void> {
  loading ??= import('libpg-query').then(async (module) => {
    await module.loadModule()
    parseSync = module.parseSync
  })
  return loading
}

/** A request may carry raw SQL: a cheap test on its text, to load the parser only when it may be needed. */
export function mayCarrySql(requestText: string): boolean {
  return /sql/i.test(requestText)
}

/** Functions without side effects that filters commonly need: text, numbers, dates, aggregates in sub-selects. */
const ALLOWED_FUNCTIONS = new Set([
  // text
  'lower',
  'upper',
  'initcap',
  'length',
  'char_length',
  'character_length',
  'octet_length',
  'substr',
  'substring',
  'left',
  'right',
  'trim',
  'btrim',
  'ltrim',
  'rtrim',
  'lpad',
  'rpad',
  'replace',
  'translate',
  'position',
  'strpos',
  'starts_with',
  'concat',
  'concat_ws',
  'split_part',
  'reverse',
  'repeat',
  'md5',
  'to_char',
  'to_number',
  'format_type',
  // numbers
  'abs',
  'round',
  'trunc',
  'ceil',
  'ceiling',
  'floor',
  'mod',
  'sign',
  'power',
  'sqrt',
  'div',
  // dates and times
  'now',
  'current_date',
  'date_trunc',
  'date_part',
  'extract',
  'age',
  'make_date',
  'make_timestamp',
  'make_timestamptz',
  'make_interval',
  'to_date',
  'to_timestamp',
  'timezone',
  'overlaps',
  'isfinite',
  'justify_days',
  // arrays and JSON values
  'array_length',
  'cardinality',
  'array_position',
  'unnest',
  'jsonb_typeof',
  'json_typeof',
  'jsonb_array_length',
  'jsonb_extract_path_text',
  'json_extract_path_text',
  // aggregates (in sub-selects)
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'bool_and',
  'bool_or',
  'every',
  'string_agg',
  'array_agg',
])

/** Types a fragment may cast to: plain scalar types. Casts to reg* types would read the catalogs. */
const ALLOWED_TYPES = new Set([
  'text',
  'varchar',
  'bpchar',
  'char',
  'name',
  'int2',
  'int4',
  'int8',
  'smallint',
  'integer',
  'int',
  'bigint',
  'numeric',
  'decimal',
  'float4',
  'float8',
  'real',
  'double precision',
  'bool',
  'boolean',
  'date',
  'time',
  'timetz',
  'timestamp',
  'timestamptz',
  'interval',
  'json',
  'jsonb',
  'uuid',
])

/**
 * Node kinds of a read-only expression. Anything else (statements other than SELECT, XML, bind parameters…) is
 * refused: the list says what is allowed, not what is feared.
 */
const ALLOWED_NODES = new Set([
  'SelectStmt',
  'ResTarget',
  'ColumnRef',
  'A_Const',
  'A_Expr',
  'A_Star',
  'A_Indirection',
  'A_Indices',
  'A_ArrayExpr',
  'BoolExpr',
  'NullTest',
  'BooleanTest',
  'SubLink',
  'FuncCall',
  'TypeCast',
  'RangeVar',
  'RangeSubselect',
  'RangeFunction',
  'JoinExpr',
  'SortBy',
  'CaseExpr',
  'CaseWhen',
  'CoalesceExpr',
  'MinMaxExpr',
  'RowExpr',
  'SQLValueFunction',
  'CollateClause',
  'WindowDef',
  'List',
  'String',
  'Integer',
  'Float',
  'Boolean',
  'BitString',
])

const SYSTEM_SCHEMAS = /^(pg_.*|information_schema)$/i

/**
 * Vets a raw SQL fragment: `condition` is a boolean expression (the root entity's alias is `a`), `select` a
 * sub-select for `inSqlList`. Returns the problem in words a client can act on, or undefined when it may run.
 */
export function sqlFragmentProblem(
  registry: EntityRegistry,
  text: string,
  kind: 'condition' | 'select',
): string | undefined {
  if (text.trim().length === 0) return 'the SQL fragment is empty'
  if (text.length > 4000) return 'the SQL fragment is longer than 4000 characters'
  if (kind === 'select' && !/^\s*select\b/i.test(text)) return 'expected a sub-select starting with SELECT'
  const structural = structureProblem(text)
  if (structural) return structural
  if (!parseSync) throw new Error('raw SQL: loadSqlParser() must be awaited first')
  // The probe puts the fragment exactly where the compiler will: inside parentheses, as one expression.
  const probe = kind === 'condition' ? `SELECT (${text})` : `SELECT 1 WHERE NULL IN (${text})`
  let tree: { stmts?: { stmt: unknown }[] }
  try {
    tree = parseSync(probe) as { stmts?: { stmt: unknown }[] }
  } catch (error) {
    const message = error instanceof Error ? error.message : 'syntax error'
    return `the SQL fragment does not parse: ${message}`
  }
  if (tree.stmts?.length !== 1) return 'expected one expression'
  const select = (tree.stmts[0]!.stmt as { SelectStmt?: Record<string, unknown> }).SelectStmt
  if (!select) return 'expected one expression'
  const expected = kind === 'condition' ? ['targetList'] : ['targetList', 'whereClause']
  const extra = Object.keys(select).filter((k) => !['limitOption', 'op', ...expected].includes(k))
  if (extra.length > 0 || (select.targetList as unknown[]).length !== 1 || select.op !== 'SETOP_NONE') {
    return 'expected one expression'
  }
  const tables = new Set(registry.queryable().map((entity) => entity.tableName.toLowerCase()))
  return nodeProblem(kind === 'condition' ? select.targetList : select.whereClause, tables)
}

/** Walks a parse tree: node wrappers are objects with one capitalized key (`{ "FuncCall": {...} }`). */
function nodeProblem(value: unknown, tables: ReadonlySet<string>): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = nodeProblem(item, tables)
      if (problem) return problem
    }
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const keys = Object.keys(value)
  if (keys.length === 1 && /^[A-Z]/.test(keys[0]!)) {
    const type = keys[0]!
    const body = (value as Record<string, Record<string, unknown>>)[type]!
    const problem = checkNode(type, body, tables)
    if (problem) return problem
    return nodeProblem(body, tables)
  }
  for (const child of Object.values(value)) {
    const problem = nodeProblem(child, tables)
    if (problem) return problem
  }
  return undefined
}

const names = (list: unknown): string[] =>
  Array.isArray(list) ? list.map((n) => (n as { String?: { sval?: string } }).String?.sval ?? '') : []

function checkNode(type: string, body: Record<string, unknown>, tables: ReadonlySet<string>): string | undefined {
  if (!ALLOWED_NODES.has(type)) {
    if (type === 'ParamRef') return 'the SQL fragment may not use bind parameters ($1)'
    if (type.endsWith('Stmt')) return `the SQL fragment may not contain a ${type.replace(/Stmt$/, '').toUpperCase()}`
    return `the SQL fragment may not use ${type}`
  }
  switch (type) {
    case 'SelectStmt':
      if (body.intoClause) return 'the SQL fragment may not use SELECT INTO'
      if (body.lockingClause) return 'the SQL fragment may not lock rows (FOR UPDATE, FOR SHARE)'
      if (body.withClause) return 'the SQL fragment may not use WITH'
      return undefined
    case 'RangeVar': {
      const schema = typeof body.schemaname === 'string' ? body.schemaname : undefined
      const relation = typeof body.relname === 'string' ? body.relname : ''
      if (body.catalogname) return `the SQL fragment may not name another database`
      if (SYSTEM_SCHEMAS.test(relation) || (schema !== undefined && SYSTEM_SCHEMAS.test(schema)))
        return 'system catalogs not permitted'
      if (schema !== undefined && schema.toLowerCase() !== 'public')
        return `the SQL fragment may not read the schema ${schema}`
      if (!tables.has(relation.toLowerCase()))
        return `the SQL fragment may not read ${relation}: not a table the Query API exposes`
      return undefined
    }
    case 'FuncCall': {
      const parts = names(body.funcname)
      const name = (parts.at(-1) ?? '').toLowerCase()
      const qualifier = parts.length > 1 ? parts.slice(0, -1).join('.').toLowerCase() : undefined
      if ((qualifier === undefined || qualifier === 'pg_catalog') && ALLOWED_FUNCTIONS.has(name)) return undefined
      if (SYSTEM_SCHEMAS.test(name)) return 'system catalogs not permitted'
      return `the SQL fragment may not call ${parts.join('.')}: not an allowed function`
    }
    case 'TypeCast': {
      const parts = names((body.typeName as { names?: unknown } | undefined)?.names)
      const name = (parts.at(-1) ?? '').toLowerCase()
      const qualifier = parts.length > 1 ? parts.slice(0, -1).join('.').toLowerCase() : undefined
      if ((qualifier === undefined || qualifier === 'pg_catalog') && ALLOWED_TYPES.has(name)) return undefined
      return `the SQL fragment may not cast to ${parts.join('.')}: not an allowed type`
    }
    case 'ColumnRef':
      if (names(body.fields).length > 2) return 'the SQL fragment may qualify a column by its table only'
      return undefined
    default:
      return undefined
  }
}

/** The text-level scan of rule 1. */
function structureProblem(text: string): string | undefined {
  let depth = 0
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    const next = text[i + 1] ?? ''
    if (c === "'") {
      const previous = text[i - 1] ?? ' '
      // Prefixed literals (E'...', U&'...', B'...') have escape rules of their own: refused rather than parsed.
      if (/[A-Za-z0-9_&]/.test(previous)) return "prefixed string literals (E'...', U&'...') are not allowed"
      const end = closing(text, i, "'")
      if (end < 0) return 'a string literal is not closed'
      i = end + 1
      continue
    }
    if (c === '"') {
      const end = closing(text, i, '"')
      if (end < 0) return 'a quoted identifier is not closed'
      i = end + 1
      continue
    }
    if (c === ';') return 'the SQL fragment may not contain ;'
    if ((c === '-' && next === '-') || (c === '/' && next === '*')) return 'the SQL fragment may not contain comments'
    if (c === '$') return 'the SQL fragment may not use $ (dollar quotes or bind parameters)'
    if (c === '\\') return 'backslashes are not allowed outside string literals'
    if (c === '(') depth++
    if (c === ')' && --depth < 0) return 'the SQL fragment closes a parenthesis it did not open'
    i++
  }
  if (depth !== 0) return 'the SQL fragment leaves a parenthesis open'
  return undefined
}

function closing(text: string, start: number, quote: string): number {
  let i = start + 1
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) {
        i += 2
        continue
      }
      return i
    }
    i++
  }
  return -1
}
