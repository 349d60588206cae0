import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { AppError } from '../errors.ts'

/**
 * JSON bodies, parsed with prototype-poisoning protection. An empty body with a JSON content type is accepted as
 * no body: HTTP clients commonly send the header on action calls (pause, runNow) that carry nothing.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    if (text.trim() === '') {
      done(null, undefined)
      return
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }))
    } catch {
      done(new AppError('MALFORMED_JSON', 'The request body is not valid JSON'), undefined)
    }
  })
}
