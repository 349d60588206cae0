/**
 * A rule the code keeps for itself was broken: a key it stored is missing from its own map, an insert returned fewer
 * ids than rows, a database constraint (a RECURRING charge has a calendar) did not hold. A bug, never the client's
 * doing: the edge answers it as any unexpected error (INTERNAL_ERROR, the request id only) and logs the message,
 * which names what was missing. Used instead of non-null assertions, which would fail later and further away.
 */
export class InvariantError extends Error {
  override readonly name = 'InvariantError'
}

/** The value, which the caller knows is there; `what` names it in the error when it is not. */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new InvariantError(`${what} is missing`)
  return value
}

/** The value under a key the caller put in the map itself. */
export function entryOf<K, V>(map: ReadonlyMap<K, V>, key: K, what: string): V {
  const value = map.get(key)
  if (value === undefined) throw new InvariantError(`${what} ${String(key)} is missing`)
  return value
}

/** Each item with the id its insert returned, in the same order (one id a row). */
export function pairIds<T>(items: readonly T[], ids: readonly number[], what: string): Map<T, number> {
  if (ids.length !== items.length) throw new InvariantError(`${ids.length} ids returned for ${items.length} ${what}`)
  return new Map(items.map((item, i) => [item, ids[i] ?? 0]))
}
