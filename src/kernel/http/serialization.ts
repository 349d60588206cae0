import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'
import { deferred } from './compile-all.ts'

type SerializerFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>['buildSerializer']

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled by the first response it writes instead of
 * when the server starts. Compiling the ~300 response schemas of the API at start-up kept their generated source and
 * code in the heap of every instance, whether the operation was ever called or not (docs/performance.md, Memory);
 * an operation's first response pays its compilation once (a few milliseconds), as before the start did.
 */
export const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options)
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined
    deferred(`${route.method} ${route.url} response ${route.httpStatus}`, () => (serialize ??= compile(route)))
    return (data: unknown) => (serialize ??= compile(route))(data)
  }
}
