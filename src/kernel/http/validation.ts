import { Ajv, type Options, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import type { ErrorDetail } from '../errors.ts'
import { deferred } from './compile-all.ts'

/** How a refusal by a pattern is worded, for patterns that stand for a list of words (see `describePattern`). */
const PATTERN_WORDS = new Map<string, string>()

/** Registers the wording of a refusal by `pattern` ("expected one of …"), used instead of the regular expression. */
export function describePattern(pattern: string, words: string): void {
  PATTERN_WORDS.set(pattern, words)
}

// ajv-formats ships CommonJS with a default export object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false }

/**
 * A copy of a schema without `$id`s: a named schema (an `$id`, for the OpenAPI document) appears in many routes, and
 * Ajv would refuse a second schema of the same `$id`. Route schemas do not use `$ref`, so nothing needs the ids.
 */
export function withoutIds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutIds)
  if (schema === null || typeof schema !== 'object') return schema
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== '$id')
      .map(([key, value]) => [key, withoutIds(value)]),
  )
}

/**
 * Bodies are validated strictly (a string is never coerced into a number); query strings and path
 * parameters are text by nature, so they are coerced.
 *
 * Each route's validator is compiled by the first request that needs it, not when the server starts: compiling the
 * schemas of every operation at start-up kept their generated source and code in the heap of every instance, called
 * or not (docs/performance.md, Memory). Fastify reads a failed validation's problems from the function's `errors`,
 * so the stand-in carries those of the compiled validator.
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  let strict: Ajv | undefined
  let coercing: Ajv | undefined
  return ({ schema, httpPart, method, url }) => {
    let compiled: ValidateFunction | undefined
    const compile = (): ValidateFunction => {
      const ajv =
        httpPart === 'body'
          ? (strict ??= addFormats(new Ajv({ ...common, coerceTypes: false })))
          : (coercing ??= addFormats(new Ajv({ ...common, coerceTypes: 'array' })))
      return ajv.compile(withoutIds(schema) as object)
    }
    deferred(`${method} ${url} ${httpPart ?? 'request'}`, () => (compiled ??= compile()))
    const validate = (data: unknown): boolean => {
      compiled ??= compile()
      const valid = compiled(data)
      validate.errors = compiled.errors
      return valid
    }
    validate.errors = undefined as ValidateFunction['errors']
    return validate
  }
}

let standalone: Ajv | undefined

/**
 * A validator applying the body rules outside a route (a bulk request checks each operation's body as its single
 * call would); it answers the problems in the words of a 400, none when the value is valid.
 */
export function bodyValidator(schema: object): (value: unknown) => ErrorDetail[] {
  standalone ??= addFormats(new Ajv({ ...common, coerceTypes: false }))
  const validate = standalone.compile(schema)
  return (value) => (validate(value) ? [] : describeValidation((validate.errors ?? []) as AjvError[], 'body'))
}

export interface AjvError {
  instancePath: string
  /** Where in the schema the failing keyword is (`#/properties/x/anyOf/1/pattern`): ties a failure to its alternative. */
  schemaPath?: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

const PART_NAMES: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
}

/** Ajv's errors as one problem per field, in the client's terms (`customerAccount`, `cron.hour`). */
const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
}

/** A JSON-schema failure in words a client can act on: never the schema's own vocabulary (anyOf, $ref…). */
function keywordMessage(e: AjvError, typesAt: ReadonlyMap<string, string[]>): string {
  const limit = e.params.limit as number | undefined
  switch (e.keyword) {
    case 'required':
      return 'is required'
    case 'additionalProperties':
      return 'is not a known field'
    case 'enum':
      return `expected one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`
    case 'const':
      return `expected ${String(e.params.allowedValue)}`
    case 'type':
      return `expected ${String(e.params.type)
        .split(',')
        .map((t) => TYPE_WORDS[t] ?? t)
        .join(' or ')}`
    case 'minimum':
      return `expected a number of ${limit} or more`
    case 'maximum':
      return `expected a number of ${limit} or less`
    case 'exclusiveMinimum':
      return `expected a number greater than ${limit}`
    case 'exclusiveMaximum':
      return `expected a number less than ${limit}`
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `expected at least ${limit} characters`
    case 'maxLength':
      return `expected at most ${limit} characters`
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `expected at least ${limit} entries`
    case 'maxItems':
      return `expected at most ${limit} entries`
    case 'minProperties':
      return 'must not be empty'
    case 'maxProperties':
      return `expected at most ${limit} entries`
    case 'uniqueItems':
      return 'expected entries without duplicates'
    case 'format':
      return `expected a valid ${String(e.params.format)}`
    case 'pattern':
      return (
        PATTERN_WORDS.get(String(e.params.pattern)) ?? `does not have the expected form (${String(e.params.pattern)})`
      )
    case 'anyOf':
    case 'oneOf': {
      const types = typesAt.get(e.instancePath)
      return types && types.length > 0
        ? `expected ${[...new Set(types)].map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`
        : 'does not have an accepted form'
    }
    default:
      return 'is invalid'
  }
}

/**
 * What to say of each `anyOf` / `oneOf` a value failed, from its alternatives' own failures (tied to it by their
 * schema path). The alternatives that took the value's JSON type are the ones the client meant: their failures are
 * given (a decimal string not of the decimal form, an empty item of a list that may also be null), and the others'
 * dropped; several such refusing the same value by format or by a list of values make one problem ("expected a valid
 * date-time or date"). When no alternative took the value's type, one problem lists the types accepted.
 */
function sortAlternatives(errors: AjvError[]): { skip: Set<AjvError>; messages: Map<AjvError, string> } {
  const skip = new Set<AjvError>()
  const messages = new Map<AjvError, string>()
  // Found by key, not by scanning: a body of many items makes as many failures, and each is placed in a few steps.
  const keyOf = (schemaPath: string, instancePath: string) => `${schemaPath}\u0000${instancePath}`
  const choices = new Map<string, AjvError>()
  for (const e of errors) {
    if ((e.keyword === 'anyOf' || e.keyword === 'oneOf') && e.schemaPath !== undefined)
      choices.set(keyOf(e.schemaPath, e.instancePath), e)
  }
  if (choices.size === 0) return { skip, messages }
  // Each failure under each choice it lies in: the choice's schema path starts its own, and the choice's value is
  // the failing value or holds it (the items of a list share their schema paths, not their values).
  const alternativesOf = new Map<AjvError, Map<string, AjvError[]>>()
  for (const e of errors) {
    if (e.schemaPath === undefined) continue
    const segments = e.schemaPath.split('/')
    const parts = e.instancePath.split('/')
    const values = parts.map((_, i) => parts.slice(0, i + 1).join('/'))
    for (let i = 0; i < segments.length - 1; i++) {
      if (segments[i] !== 'anyOf' && segments[i] !== 'oneOf') continue
      const schemaPath = segments.slice(0, i + 1).join('/')
      for (const value of values) {
        const choice = choices.get(keyOf(schemaPath, value))
        if (!choice) continue
        const byAlternative = alternativesOf.get(choice) ?? new Map<string, AjvError[]>()
        alternativesOf.set(choice, byAlternative)
        const index = segments[i + 1]!
        byAlternative.set(index, [...(byAlternative.get(index) ?? []), e])
      }
    }
  }
  for (const [choice, byAlternative] of alternativesOf) {
    const typeRefused = (failures: AjvError[]) =>
      failures.some((e) => e.keyword === 'type' && e.instancePath === choice.instancePath)
    const fitting = [...byAlternative.values()].filter((failures) => !typeRefused(failures))
    const inner = [...byAlternative.values()].flat()
    if (fitting.length === 0) {
      for (const e of inner) skip.add(e)
      const types = inner
        .filter((e) => e.keyword === 'type' && e.instancePath === choice.instancePath)
        .flatMap((e) => String(e.params.type).split(','))
      if (types.length > 0)
        messages.set(choice, `expected ${[...new Set(types)].map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`)
      continue
    }
    const kept = new Set(fitting.flat())
    // Several alternatives passing a oneOf leave nothing to say but the oneOf's own failure.
    if (kept.size === 0) continue
    skip.add(choice)
    for (const e of inner) if (!kept.has(e)) skip.add(e)
    const atValue = (keywords: string[]) =>
      [...kept].filter((e) => keywords.includes(e.keyword) && e.instancePath === choice.instancePath)
    const formats = atValue(['format'])
    if (formats.length > 1) {
      messages.set(formats[0]!, `expected a valid ${formats.map((e) => String(e.params.format)).join(' or ')}`)
      for (const e of formats.slice(1)) skip.add(e)
    }
    const listed = atValue(['const', 'enum'])
    if (listed.length > 1) {
      const values = listed.flatMap((e) =>
        e.keyword === 'const' ? [e.params.allowedValue] : (e.params.allowedValues as unknown[]),
      )
      messages.set(listed[0]!, `expected one of ${values.map(String).join(', ')}`)
      for (const e of listed.slice(1)) skip.add(e)
    }
  }
  return { skip, messages }
}

export function describeValidation(errors: AjvError[], context: string | undefined): ErrorDetail[] {
  // The types each alternative of an anyOf accepted, by the path of the value they were tried on (for errors that
  // carry no schema path).
  const typesAt = new Map<string, string[]>()
  for (const e of errors) {
    if (e.keyword === 'type')
      typesAt.set(e.instancePath, [...(typesAt.get(e.instancePath) ?? []), ...String(e.params.type).split(',')])
  }
  const alternatives = new Set(
    errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath),
  )
  const { skip, messages } = sortAlternatives(errors)
  // An empty value is said to be empty, not also refused by its pattern.
  const empty = new Set(
    errors.filter((e) => e.keyword === 'minLength' && e.params.limit === 1).map((e) => e.instancePath),
  )
  for (const e of errors) if (e.keyword === 'pattern' && empty.has(e.instancePath)) skip.add(e)
  const details = problemsOf(errors, context, typesAt, alternatives, skip, messages)
  // Never a refusal without a reason: should the sorting drop every failure, they are all given.
  return details.length > 0 || errors.length === 0
    ? details
    : problemsOf(errors, context, typesAt, alternatives, new Set(), new Map())
}

function problemsOf(
  errors: AjvError[],
  context: string | undefined,
  typesAt: ReadonlyMap<string, string[]>,
  alternatives: ReadonlySet<string>,
  skip: ReadonlySet<AjvError>,
  messages: ReadonlyMap<AjvError, string>,
): ErrorDetail[] {
  const seen = new Set<string>()
  const details: ErrorDetail[] = []
  for (const e of errors) {
    if (skip.has(e)) continue
    // Without schema paths: the failures inside an anyOf are summed up by the anyOf itself.
    if (e.schemaPath === undefined && e.keyword === 'type' && alternatives.has(e.instancePath)) continue
    const base = e.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.')
    let field = base
    if (e.keyword === 'required') field = [base, String(e.params.missingProperty)].filter(Boolean).join('.')
    if (e.keyword === 'additionalProperties')
      field = [base, String(e.params.additionalProperty)].filter(Boolean).join('.')
    let message = messages.get(e) ?? keywordMessage(e, typesAt)
    if (!field) field = PART_NAMES[context ?? ''] ? (context ?? 'body') : 'body'
    else if (context && PART_NAMES[context]) message = `${PART_NAMES[context]} ${message}`
    const key = `${field}:${message}`
    if (seen.has(key)) continue
    seen.add(key)
    details.push({ field, message })
  }
  return details
}
