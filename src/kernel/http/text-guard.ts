import type { FastifyInstance } from 'fastify'
import { validationError } from '../errors.ts'

const UNSTORABLE = 'contains a character that cannot be stored (NUL or an unpaired UTF-16 surrogate)'

/**
 * PostgreSQL text cannot hold NUL (U+0000), and a UTF-16 surrogate without its pair has no UTF-8 form: such a value
 * would fail deep inside a statement (a 500) or be silently replaced. Strings are checked wherever a request carries
 * them, keys included.
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed()
}

/**
 * The path (`a.b[2].c`) of the first string or key in `value` that PostgreSQL text cannot hold, or undefined. Walks
 * with its own stack, so a deeply nested body cannot exhaust the call stack.
 */
export function unstorableField(value: unknown, root: string): string | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: root }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path } = next
    if (typeof current === 'string') {
      if (!isStorableText(current)) return path
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => pending.push({ value: item, path: `${path}[${i}]` }))
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const field = path === '' ? key : `${path}.${key}`
        if (!isStorableText(key)) return field
        pending.push({ value: item, path: field })
      }
    }
  }
  return undefined
}

/** A query parameter holding JSON (the Query API's `filters`) is checked as the JSON it decodes to. */
function asJson(text: string): unknown {
  const trimmed = text.trimStart()
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return text
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/**
 * One hook for every route: path parameters, query parameters (and the JSON some carry) and bodies (JSON or form)
 * holding text PostgreSQL cannot store are refused with 400 naming the field, before any route sees them. The error
 * handler gives the answer the route family's shape (the token endpoint's is OAuth's).
 */
export function installTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const query = Object.entries(request.query ?? {}).map(([name, value]: [string, unknown]) => ({
      name,
      value: typeof value === 'string' ? asJson(value) : value,
    }))
    const parts: { value: unknown; root: string }[] = [
      { value: request.params, root: '' },
      ...query.map((q) => ({ value: { [q.name]: q.value }, root: '' })),
      { value: request.body, root: typeof request.body === 'object' && !Array.isArray(request.body) ? '' : 'body' },
    ]
    for (const part of parts) {
      const field = unstorableField(part.value, part.root)
      if (field !== undefined) throw validationError([{ field: field === '' ? 'body' : field, message: UNSTORABLE }])
    }
  })
}
