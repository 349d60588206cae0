import type { EntityRegistry } from '../../kernel/model/index.ts'

/** Statement words a filter fragment never needs; writes fail anyway in the read-only transaction. */
const FORBIDDEN_WORDS = new Set([
  'insert',
  'update',
  'delete',
  'merge',
  'upsert',
  'drop',
  'alter',
  'create',
  'truncate',
  'grant',
  'revoke',
  'copy',
  'execute',
  'exec',
  'call',
  'do',
  'lock',
  'vacuum',
  'analyze',
  'analyse',
  'cluster',
  'reindex',
  'refresh',
  'listen',
  'notify',
  'unlisten',
  'set',
  'reset',
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'prepare',
  'deallocate',
  'declare',
  'fetch',
  'move',
  'close',
  'into',
  'returning',
  'load',
  'import',
  'comment',
  'discard',
  'checkpoint',
  'security',
])

/** Functions that run SQL text of their own, reach files, large objects or other servers, or change settings. */
const FORBIDDEN_FUNCTIONS = [
  /^pg_/,
  /^lo_/,
  /^dblink/,
  /_to_xml/,
  /^ts_stat$/,
  /^set_config$/,
  /^current_setting$/,
  /^txid_/,
  /^nextval$/,
  /^setval$/,
]

/** Schemas that are never data: the system catalogs and the job queue's tables. */
const FORBIDDEN_SCHEMAS = ['information_schema', 'pgboss']

/**
 * Vets a raw SQL fragment of a `SQL...` or `inSqlList` filter (queryExpert only). It is spliced inside parentheses
 * of a larger statement, so it must keep its parentheses balanced and cannot end the statement or comment the
 * rest out; it may not name tables holding secrets nor the system catalogs. Returns the problem, or undefined.
 */
export function sqlFragmentProblem(
  registry: EntityRegistry,
  text: string,
  kind: 'condition' | 'select',
): string | undefined {
  if (text.trim().length === 0) return 'the SQL fragment is empty'
  if (text.length > 4000) return 'the SQL fragment is longer than 4000 characters'
  if (kind === 'select' && !/^\s*select\b/i.test(text)) return 'expected a sub-select starting with SELECT'
  const secret = new Set<string>(FORBIDDEN_SCHEMAS)
  for (const entity of registry.entities) {
    if (entity.queryable) continue
    secret.add(entity.tableName.toLowerCase())
    if (entity.schema !== 'public') secret.add(entity.schema.toLowerCase())
  }
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
      const word = text
        .slice(i + 1, end)
        .replace(/""/g, '"')
        .toLowerCase()
      const problem = wordProblem(word, secret)
      if (problem) return problem
      i = end + 1
      continue
    }
    if (c === ';') return 'the SQL fragment may not contain ;'
    if ((c === '-' && next === '-') || (c === '/' && next === '*')) return 'the SQL fragment may not contain comments'
    if (c === '$' && /[A-Za-z_$]/.test(next)) return 'dollar-quoted strings are not allowed'
    if (c === '\\') return 'backslashes are not allowed outside string literals'
    if (c === '(') depth++
    if (c === ')' && --depth < 0) return 'the SQL fragment closes a parenthesis it did not open'
    if (/[A-Za-z_]/.test(c)) {
      let end = i + 1
      while (end < text.length && /[A-Za-z0-9_$]/.test(text[end]!)) end++
      const problem = wordProblem(text.slice(i, end).toLowerCase(), secret)
      if (problem) return problem
      i = end
      continue
    }
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

function wordProblem(word: string, secret: ReadonlySet<string>): string | undefined {
  if (FORBIDDEN_WORDS.has(word)) return `the SQL fragment may not use ${word.toUpperCase()}`
  if (secret.has(word)) return `the SQL fragment may not reference ${word}`
  if (FORBIDDEN_FUNCTIONS.some((pattern) => pattern.test(word))) return `the SQL fragment may not reference ${word}`
  return undefined
}
