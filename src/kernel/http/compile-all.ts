/**
 * Route schemas are compiled by their first use (serialization.ts, validation.ts), so a schema that cannot compile
 * would fail only when its route is first called. A test compiles them all at once: it turns collecting on before the
 * app is built, then `compileAll` compiles every validator and serializer the routes were given. Collecting is off
 * unless a test turns it on, so a production process keeps no list of schemas.
 */

interface Compilation {
  /** The route and the part compiled: `GET /api/v1/customers response 200`, `POST /x body`. */
  what: string
  compile: () => unknown
}

let collected: Compilation[] | undefined

/** Tests: from now on, remember every compilation the route compilers defer. */
export function collectCompilations(): void {
  collected = []
}

/** A compilation deferred to first use, remembered only while a test collects them. */
export function deferred(what: string, compile: () => unknown): void {
  collected?.push({ what, compile })
}

/** Compiles every collected compilation; answers how many ran and each failure, naming its route and part. */
export function compileAll(): { compiled: number; failures: string[] } {
  const all = collected ?? []
  const failures: string[] = []
  for (const { what, compile } of all) {
    try {
      compile()
    } catch (error) {
      failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return { compiled: all.length, failures }
}
