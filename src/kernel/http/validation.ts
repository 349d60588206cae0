import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import type { ErrorDetail } from '../errors.ts'

// ajv-formats ships CommonJS with a default export object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false }

/**
 * Bodies are validated strictly (a string is never coerced into a number); query strings and path
 * parameters are text by nature, so they are coerced.
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = addFormats(new Ajv({ ...common, coerceTypes: false }))
  const coercing = addFormats(new Ajv({ ...common, coerceTypes: 'array' }))
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>
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
export function describeValidation(errors: AjvError[], context: string | undefined): ErrorDetail[] {
  const seen = new Set<string>()
  const details: ErrorDetail[] = []
  for (const e of errors) {
    const base = e.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.')
    let field = base
    let message: string
    switch (e.keyword) {
      case 'required':
        field = [base, String(e.params.missingProperty)].filter(Boolean).join('.')
        message = 'is required'
        break
      case 'additionalProperties':
        field = [base, String(e.params.additionalProperty)].filter(Boolean).join('.')
        message = 'is not a known field'
        break
      case 'enum':
        message = `expected one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`
        break
      case 'type':
        message = `expected ${String(e.params.type)}`
        break
      default:
        message = e.message ? `expected a value that ${e.message}` : 'is invalid'
    }
    if (!field) field = PART_NAMES[context ?? ''] ? (context ?? 'body') : 'body'
    else if (context && PART_NAMES[context]) message = `${PART_NAMES[context]} ${message}`
    const key = `${field}:${message}`
    if (seen.has(key)) continue
    seen.add(key)
    details.push({ field, message })
  }
  return details
}
