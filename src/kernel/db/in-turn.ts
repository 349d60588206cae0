/**
 * Runs reads one after the other. Inside a transaction they share one connection, on which node-postgres would
 * only queue concurrent queries (a use it deprecates); PGlite has one connection anyway.
 */
export async function inTurn<T extends unknown[]>(...tasks: { [K in keyof T]: () => PromiseLike<T[K]> }): Promise<T> {
  const results: unknown[] = []
  for (const task of tasks) results.push(await task())
  return results as T
}
