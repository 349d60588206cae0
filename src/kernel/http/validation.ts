import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

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
