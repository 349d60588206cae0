import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { withoutIds } from '../../src/kernel/http/validation.ts'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/**
 * Checks every response an app gives against the operation the OpenAPI document declares for it: the status must be
 * declared, the body must match the declared schema, and the declared schema must not have dropped a field the
 * handler sent (Fastify serializes with the declared schema, so an undeclared field silently disappears). Each
 * breach is pushed to `violations` as one line; `useTestApp` fails the file when any is left at the end.
 */
export function installResponseContract(app: FastifyInstance, violations: string[]): void {
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false, validateFormats: true }))
  ajv.addFormat('decimal', true)
  const validators = new Map<string, ValidateFunction>()
  const sent = new WeakMap<FastifyRequest, unknown>()

  const validatorFor = (key: string, schema: object): ValidateFunction => {
    let validate = validators.get(key)
    if (!validate) {
      validate = ajv.compile(withoutIds(schema) as object)
      validators.set(key, validate)
    }
    return validate
  }

  app.addHook('preSerialization', async (request, _reply, payload) => {
    try {
      sent.set(request, JSON.parse(JSON.stringify(payload)))
    } catch {
      // Not JSON: nothing to compare.
    }
    return payload
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const schema = request.routeOptions.schema
    if (!schema || schema.hide || request.routeOptions.url === undefined) return payload
    const operation = `${request.method} ${request.routeOptions.url}`
    const status = reply.statusCode
    const responses = (schema.response ?? {}) as Record<string, object>
    const declared = responses[status] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default
    if (!declared) {
      violations.push(`${operation} answered ${status}, which it does not declare`)
      return payload
    }
    const type = String(reply.getHeader('content-type') ?? '')
    if (status === 204 || typeof payload !== 'string' || !type.includes('json') || payload === '') return payload
    let body: unknown
    try {
      body = JSON.parse(payload)
    } catch {
      violations.push(`${operation} ${status}: the body is not JSON`)
      return payload
    }
    const validate = validatorFor(`${operation} ${status}`, declared)
    if (!validate(body)) {
      const problems = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`)
      violations.push(`${operation} ${status}: the body breaks its schema: ${problems.join('; ')}`)
    }
    const original = sent.get(request)
    if (original !== undefined) {
      const dropped = droppedPaths(original, body, '')
      if (dropped.length > 0)
        violations.push(
          `${operation} ${status}: fields sent but not declared (dropped): ${dropped.slice(0, 5).join(', ')}`,
        )
    }
    return payload
  })
}

/** Key paths present in `before` and missing from `after` (the serializer dropped them). */
function droppedPaths(before: unknown, after: unknown, path: string): string[] {
  if (Array.isArray(before)) {
    if (!Array.isArray(after)) return []
    return before.flatMap((item, i) => droppedPaths(item, after[i], `${path}[${i}]`))
  }
  if (before === null || typeof before !== 'object') return []
  if (after === null || typeof after !== 'object') return []
  const target = after as Record<string, unknown>
  return Object.entries(before).flatMap(([key, value]) => {
    const at = path ? `${path}.${key}` : key
    return key in target ? droppedPaths(value, target[key], at) : [at]
  })
}
