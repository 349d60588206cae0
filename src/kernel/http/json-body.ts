import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { bodyReviver } from '../decimal-json.ts'
import { AppError } from '../errors.ts'

/**
 * JSON bodies, parsed with prototype-poisoning protection. A number a double cannot hold exactly is read as its
 * decimal text (`bodyReviver`), so decimal fields get every digit sent. An empty body with a JSON content type
 * is accepted as no body: HTTP clients commonly send the header on action calls (pause, runNow) that carry nothing.
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
      const reviver = bodyReviver(text)
      done(null, secureJson.parse(text, reviver, { protoAction: 'error', constructorAction: 'error' }))
    } catch {
      done(new AppError('MALFORMED_JSON', 'The request body is not valid JSON'), undefined)
    }
  })
}
