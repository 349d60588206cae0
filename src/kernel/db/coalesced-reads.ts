import { isDatabaseUnavailable } from './database-errors.ts'

/**
 * Reads for several keys at once on a database handle (a `Db`): each key's result by its position in `keys`,
 * undefined where nothing was found.
 */
export type ManyRead<D, K, R> = (db: D, keys: readonly K[]) => Promise<readonly (R | undefined)[]>

interface Waiting<K, R> {
  readonly key: K
  readonly resolve: (result: R | undefined) => void
  readonly reject: (error: unknown) => void
}

/**
 * One read per key, sent together: the keys asked for on a database during one turn of the event loop (requests
 * whose data arrived together, under load) go to PostgreSQL as one statement per `limit` keys, sent when the turn's
 * I/O callbacks are done (`setImmediate`). Each caller gets its own key's result; when the statement fails, each key
 * is read again alone, so a caller gets an error only from its own key's statement (unless the database is
 * unavailable: then every caller of the statement gets its error at once). A statement's round trip costs
 * more than the rows it reads (docs/performance.md, "Fourth round"), so under load this saves round trips; a read
 * alone waits only for the end of the turn.
 *
 * Only for reads that need no transaction and no lock (what they answer may change right after in any case):
 * `db` must be the pool, not a transaction's connection.
 */
export function coalescedReads<D extends object, K, R>(
  read: ManyRead<D, K, R>,
  limit = 16,
): (db: D, key: K) => Promise<R | undefined> {
  const pending = new Map<D, Waiting<K, R>[]>()
  const send = (db: D, batch: readonly Waiting<K, R>[]) => {
    read(
      db,
      batch.map((w) => w.key),
    ).then(
      (results) => {
        batch.forEach((w, i) => w.resolve(results[i]))
      },
      (error: unknown) => {
        // One key PostgreSQL refuses must not fail the requests sent with it: each key again, alone. Not when the
        // database is unavailable (no connection within the pool's timeout, a connection lost): that is no key's
        // doing, and reading each key again would make every caller wait that timeout twice before its 503.
        if (batch.length === 1 || isDatabaseUnavailable(error)) for (const w of batch) w.reject(error)
        else for (const w of batch) send(db, [w])
      },
    )
  }
  return (db, key) =>
    new Promise<R | undefined>((resolve, reject) => {
      let queue = pending.get(db)
      if (!queue) {
        const started: Waiting<K, R>[] = []
        queue = started
        pending.set(db, started)
        setImmediate(() => {
          pending.delete(db)
          for (let at = 0; at < started.length; at += limit) send(db, started.slice(at, at + limit))
        })
      }
      queue.push({ key, resolve, reject })
    })
}
