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
 * What a tree may contain. Fragments: the registry's tables only, no WITH, columns qualified by their table at
 * most. Expert statements (`tables` undefined): any relation outside the system catalogs (the query role's grants
 * are the bound), WITH, EXPLAIN, window functions and set-returning series.
 */
interface TreeRules {
  readonly tables: ReadonlySet<string> | undefined
  /** Fragments: collects the (lower-cased) tables the tree reads, for the caller's rights on each. */
  readonly read?: Set<string>
  readonly nodes: ReadonlySet<string>
  readonly functions: ReadonlySet<string>
  readonly what: string
}

/** Node kinds a whole Expert statement may add to an expression's: WITH, EXPLAIN and its options, GROUPING SETS. */
const STATEMENT_NODES = new Set([
  ...ALLOWED_NODES,
  'WithClause',
  'CommonTableExpr',
  'ExplainStmt',
  'DefElem',
  'GroupingSet',
  'GroupingFunc',
  'NullIfExpr',
])

/** Side-effect-free functions an Expert statement may call on top of a fragment's: window and series functions. */
const STATEMENT_FUNCTIONS = new Set([
  ...ALLOWED_FUNCTIONS,
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  'generate_series',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'percentile_cont',
  'percentile_disc',
  'mode',
  'coalesce',
  'nullif',
  'greatest',
  'least',
  'date',
  'jsonb_agg',
  'json_agg',
  'jsonb_build_object',
  'json_build_object',
  'to_jsonb',
  'to_json',
  'regexp_replace',
  'regexp_match',
  'regexp_matches',
  'sum',
])

/**
 * Vets a raw SQL fragment: `condition` is a boolean expression (the root entity's alias is `a`), `select` a
 * sub-select for `inSqlList`. Returns the problem in words a client can act on, or undefined when it may run.
 */
export function sqlFragmentProblem(
  registry: EntityRegistry,
  text: string,
  kind: 'condition' | 'select',
): string | undefined {
  const vetted = vetSqlFragment(registry, text, kind)
  return 'problem' in vetted ? vetted.problem : undefined
}

/**
 * As `sqlFragmentProblem`, and for an accepted fragment the names of the entities its sub-selects read (each table
 * named in a FROM clause, the root's own included when it is named there): the caller needs the right to read each
 * of them, as a direct query on it would.
 */
export function vetSqlFragment(
  registry: EntityRegistry,
  text: string,
  kind: 'condition' | 'select',
): { problem: string } | { entities: string[] } {
  if (text.trim().length === 0) return { problem: 'the SQL fragment is empty' }
  if (text.length > 4000) return { problem: 'the SQL fragment is longer than 4000 characters' }
  if (kind === 'select' && !/^\s*select\b/i.test(text)) return { problem: 'expected a sub-select starting with SELECT' }
  const structural = structureProblem(text)
  if (structural) return { problem: structural }
  if (!parseSync) throw new Error('raw SQL: loadSqlParser() must be awaited first')
  // The probe puts the fragment exactly where the compiler will: inside parentheses, as one expression.
  const probe = kind === 'condition' ? `SELECT (${text})` : `SELECT 1 WHERE NULL IN (${text})`
  let tree: { stmts?: { stmt: unknown }[] }
  try {
    tree = parseSync(probe) as { stmts?: { stmt: unknown }[] }
  } catch (error) {
    return { problem: `the SQL fragment does not parse${parseProblem(error)}` }
  }
  if (tree.stmts?.length !== 1) return { problem: 'expected one expression' }
  const select = (tree.stmts[0]!.stmt as { SelectStmt?: Record<string, unknown> }).SelectStmt
  if (!select) return { problem: 'expected one expression' }
  const expected = kind === 'condition' ? ['targetList'] : ['targetList', 'whereClause']
  const extra = Object.keys(select).filter((k) => !['limitOption', 'op', ...expected].includes(k))
  if (extra.length > 0 || (select.targetList as unknown[]).length !== 1 || select.op !== 'SETOP_NONE') {
    return { problem: 'expected one expression' }
  }
  const byTable = new Map(registry.queryable().map((entity) => [entity.tableName.toLowerCase(), entity.name]))
  const rules: TreeRules = {
    tables: new Set(byTable.keys()),
    read: new Set(),
    nodes: ALLOWED_NODES,
    functions: ALLOWED_FUNCTIONS,
    what: 'the SQL fragment',
  }
  const problem = nodeProblem(kind === 'condition' ? select.targetList : select.whereClause, rules)
  if (problem) return { problem }
  return { entities: [...rules.read!].map((table) => byTable.get(table)!) }
}

/** Words an Expert text may not contain outside literals and quoted identifiers (it runs read-only). */
const FORBIDDEN_WORDS = /\b(delete|update|insert|drop|alter|create|truncate|grant|revoke|exec|execute|call|merge)\b/i

/** A refused Expert text: the reason, and the offending character's offset in the text when there is one. */
export interface SqlProblem {
  readonly message: string
  readonly offset?: number | undefined
}

/** The parse of an accepted Expert statement: rows (SELECT, WITH) or a plan (EXPLAIN). */
export interface ExpertStatement {
  readonly kind: 'select' | 'explain'
}

/**
 * Vets a whole Expert (native SQL) statement: no forbidden keyword (`FORBIDDEN_WORDS`) in the text outside literals and
 * quoted identifiers, then PostgreSQL's parse tree (one SELECT, WITH or EXPLAIN; no data-modifying CTE, SELECT
 * INTO or locking clause; no system catalog; allow-listed functions and casts only). `loadSqlParser` first.
 */
export function expertSqlProblem(text: string): SqlProblem | ExpertStatement {
  if (text.trim().length === 0) return { message: 'the query is empty' }
  if (text.length > 20_000) return { message: 'the query is longer than 20000 characters' }
  const first = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase()
  if (first !== 'select' && first !== 'with' && first !== 'explain')
    return { message: 'the query must start with SELECT, WITH or EXPLAIN', offset: text.search(/\S/) }
  const scanned = scanOutsideLiterals(text, 'the query')
  if ('message' in scanned) return scanned
  // Look-alike letters, full-width forms, invisible spaces: PostgreSQL reads them as identifier characters, so
  // outside literals and quoted identifiers they can only disguise something.
  const foreign = scanned.bare.search(/[^\x20-\x7e\t\r\n]/)
  if (foreign >= 0)
    return {
      message: 'characters outside ASCII are allowed only in string literals and quoted identifiers',
      offset: foreign,
    }
  const word = FORBIDDEN_WORDS.exec(scanned.bare)
  if (word) return { message: `the query may not contain ${word[1]!.toUpperCase()}`, offset: word.index }
  if (/\b(pg_\w*|information_schema)\b/i.test(scanned.bare)) {
    return { message: 'system catalogs not permitted', offset: scanned.bare.search(/\b(pg_\w*|information_schema)\b/i) }
  }
  if (!parseSync) throw new Error('raw SQL: loadSqlParser() must be awaited first')
  let tree: { stmts?: { stmt: unknown }[] }
  try {
    tree = parseSync(text) as { stmts?: { stmt: unknown }[] }
  } catch (error) {
    const message = error instanceof Error ? error.message : 'syntax error'
    const cursor = (error as { cursorPosition?: number }).cursorPosition
    return { message: `the query does not parse: ${message}`, offset: typeof cursor === 'number' ? cursor : undefined }
  }
  if (tree.stmts?.length !== 1) return { message: 'expected exactly one statement' }
  const statement = tree.stmts[0]!.stmt as { SelectStmt?: Record<string, unknown>; ExplainStmt?: unknown }
  if (!statement.SelectStmt && !statement.ExplainStmt)
    return { message: 'only SELECT, WITH and EXPLAIN statements are allowed' }
  const problem = nodeProblem(statement, {
    tables: undefined,
    nodes: STATEMENT_NODES,
    functions: STATEMENT_FUNCTIONS,
    what: 'the query',
  })
  if (problem) return { message: problem }
  return { kind: statement.ExplainStmt ? 'explain' : 'select' }
}

/** Walks a parse tree: node wrappers are objects with one capitalized key (`{ "FuncCall": {...} }`). */
function nodeProblem(value: unknown, rules: TreeRules): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = nodeProblem(item, rules)
      if (problem) return problem
    }
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const keys = Object.keys(value)
  if (keys.length === 1 && /^[A-Z]/.test(keys[0]!)) {
    const type = keys[0]!
    const body = (value as Record<string, Record<string, unknown>>)[type]!
    const problem = checkNode(type, body, rules)
    if (problem) return problem
    return nodeProblem(body, rules)
  }
  for (const child of Object.values(value)) {
    const problem = nodeProblem(child, rules)
    if (problem) return problem
  }
  return undefined
}

const names = (list: unknown): string[] =>
  Array.isArray(list) ? list.map((n) => (n as { String?: { sval?: string } }).String?.sval ?? '') : []

function checkNode(type: string, body: Record<string, unknown>, rules: TreeRules): string | undefined {
  const what = rules.what
  if (!rules.nodes.has(type)) {
    if (type === 'ParamRef') return `${what} may not use bind parameters ($1)`
    if (type.endsWith('Stmt')) return `${what} may not contain a ${type.replace(/Stmt$/, '').toUpperCase()}`
    return `${what} may not use ${type}`
  }
  switch (type) {
    case 'SelectStmt':
      if (body.intoClause) return `${what} may not use SELECT INTO`
      if (body.lockingClause) return `${what} may not lock rows (FOR UPDATE, FOR SHARE)`
      if (body.withClause && !rules.nodes.has('WithClause')) return `${what} may not use WITH`
      return undefined
    case 'RangeVar': {
      const schema = typeof body.schemaname === 'string' ? body.schemaname : undefined
      const relation = typeof body.relname === 'string' ? body.relname : ''
      if (body.catalogname) return `${what} may not name another database`
      if (SYSTEM_SCHEMAS.test(relation) || (schema !== undefined && SYSTEM_SCHEMAS.test(schema)))
        return 'system catalogs not permitted'
      // Expert statements: any other relation; the query role's grants decide at run time.
      if (!rules.tables) return undefined
      if (schema !== undefined && schema.toLowerCase() !== 'public') return `${what} may not read the schema ${schema}`
      if (!rules.tables.has(relation.toLowerCase()))
        return `${what} may not read ${relation}: not a table the Query API exposes`
      rules.read?.add(relation.toLowerCase())
      return undefined
    }
    case 'FuncCall': {
      const parts = names(body.funcname)
      const name = (parts.at(-1) ?? '').toLowerCase()
      const qualifier = parts.length > 1 ? parts.slice(0, -1).join('.').toLowerCase() : undefined
      if ((qualifier === undefined || qualifier === 'pg_catalog') && rules.functions.has(name)) return undefined
      if (SYSTEM_SCHEMAS.test(name)) return 'system catalogs not permitted'
      return `${what} may not call ${parts.join('.')}: not an allowed function`
    }
    case 'TypeCast': {
      const parts = names((body.typeName as { names?: unknown } | undefined)?.names)
      const name = (parts.at(-1) ?? '').toLowerCase()
      const qualifier = parts.length > 1 ? parts.slice(0, -1).join('.').toLowerCase() : undefined
      if ((qualifier === undefined || qualifier === 'pg_catalog') && ALLOWED_TYPES.has(name)) return undefined
      return `${what} may not cast to ${parts.join('.')}: not an allowed type`
    }
    case 'ColumnRef':
      if (rules.tables && names(body.fields).length > 2) return `${what} may qualify a column by its table only`
      return undefined
    default:
      return undefined
  }
}

/** The text-level scan of a fragment: nothing `scanOutsideLiterals` refuses, and balanced parentheses. */
function structureProblem(text: string): string | undefined {
  const scanned = scanOutsideLiterals(text, 'the SQL fragment')
  if ('message' in scanned) return scanned.message
  let depth = 0
  for (const c of scanned.bare) {
    if (c === '(') depth++
    if (c === ')' && --depth < 0) return 'the SQL fragment closes a parenthesis it did not open'
  }
  if (depth !== 0) return 'the SQL fragment leaves a parenthesis open'
  return undefined
}

/**
 * Scans a text as PostgreSQL's lexer would for what matters here: string literals and quoted identifiers are
 * blanked out of `bare` (offsets kept), and `;`, comments, dollar quotes or bind parameters, backslashes and
 * prefixed literals (whose escapes this scan would not follow) are refused.
 */
function scanOutsideLiterals(text: string, what: string): { bare: string } | SqlProblem {
  let bare = ''
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    const next = text[i + 1] ?? ''
    if (c === "'" || c === '"') {
      const previous = text[i - 1] ?? ' '
      // Prefixed literals (E'...', U&'...', B'...') have escape rules of their own: refused rather than parsed.
      if (c === "'" && /[A-Za-z0-9_&]/.test(previous))
        return { message: "prefixed string literals (E'...', U&'...') are not allowed", offset: i }
      const end = closing(text, i, c)
      if (end < 0)
        return {
          message: c === "'" ? 'a string literal is not closed' : 'a quoted identifier is not closed',
          offset: i,
        }
      bare += ' '.repeat(end + 1 - i)
      i = end + 1
      continue
    }
    if (c === ';') return { message: `${what} may not contain ;`, offset: i }
    if ((c === '-' && next === '-') || (c === '/' && next === '*'))
      return { message: `${what} may not contain comments`, offset: i }
    if (c === '$') return { message: `${what} may not use $ (dollar quotes or bind parameters)`, offset: i }
    if (c === '\\') return { message: 'backslashes are not allowed outside string literals', offset: i }
    bare += c
    i++
  }
  return { bare }
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

/**
 * Where the parser stopped, in the fragment's own words: `near ")"` or `: it ends too early`. The parser's sentence
 * ("syntax error at or near …") is PostgreSQL's wording, which answers never carry; other parser messages (an
 * unterminated quoted string…) describe the client's text and are kept.
 */
function parseProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : ''
  const near = /^syntax error at or near (.+)$/.exec(message)
  if (near) return ` near ${near[1]}`
  if (message === '' || /^syntax error/.test(message)) return ': it ends too early or is malformed'
  return `: ${message}`
}
