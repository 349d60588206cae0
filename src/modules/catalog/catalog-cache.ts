import { sql } from 'drizzle-orm'
import { rows, type Db } from '../../kernel/db/database.ts'

/**
 * The catalog's generation (`obol_catalog_generation`): raised by the commit of every transaction that changed a row
 * order rating reads of the catalog, on any instance (database triggers, migration 0018). One cheap read per request.
 */
export async function catalogGeneration(db: Db): Promise<bigint> {
  const found = await rows<{ generation: string }>(db, sql`select ${catalogGenerationSql} as generation`)
  return BigInt(found[0]!.generation)
}

/** The generation as a text expression, for a statement that reads it with other rows (one round trip less). */
export const catalogGenerationSql = sql`(select generation::text from obol_catalog_generation where id = 1)`

type Key = string | number

/** What one request reads through the cache: rows of the generation it read, loaded when missing. */
export interface CatalogReads {
  readonly generation: bigint
  /**
   * The values of `keys` of one kind of row: cached ones at once, the others by one call of `load` with the keys
   * missing (then kept). A key `load` does not answer is absent from the result and not remembered.
   */
  many<K extends Key, V>(
    kind: string,
    keys: readonly K[],
    load: (missing: readonly K[]) => Promise<ReadonlyMap<K, V>>,
  ): Promise<Map<K, V>>
}

export interface CatalogCache {
  /** Reads the generation (one statement on `db`) and answers the reads of this request at that generation. */
  reads(db: Db): Promise<CatalogReads>
  /**
   * The reads of a request at the generation it read itself (`catalogGenerationSql`) before reading any catalog row.
   */
  readsAt(generation: bigint): CatalogReads
  /** Entries held now (the `obol_cache_entries{cache="catalog"}` gauge). */
  size(): number
}

/**
 * An in-process cache of catalog rows (published prices, charges, offers, products, discount plans, tax mappings) for
 * one application instance, bounded to `maxEntries`: when full it is emptied and fills again from the requests that
 * follow (a catalog larger than the bound is read from the database more often, never wrongly). Never stale: every
 * request reads the generation first; entries of an older generation are dropped when a newer one is read, and the
 * rows a request loads are at least as new as the generation it read (they are read after it), so an entry is never
 * older than its tag. A request that read an older generation than the cache's (it started before a change
 * committed) neither reads nor fills the cache. Cached values are shared: callers must not change them.
 */
export function createCatalogCache(options: { maxEntries?: number } = {}): CatalogCache {
  const maxEntries = options.maxEntries ?? 10_000
  let generation = -1n
  let size = 0
  const kinds = new Map<string, Map<Key, unknown>>()
  const clear = () => {
    kinds.clear()
    size = 0
  }

  const readsAt = (read: bigint): CatalogReads => {
    if (read > generation) {
      clear()
      generation = read
    }
    const current = () => read === generation
    return {
      generation: read,
      async many(kind, keys, load) {
        const result = new Map()
        const missing: (typeof keys)[number][] = []
        const cached = current() ? kinds.get(kind) : undefined
        for (const key of keys) {
          if (result.has(key)) continue
          if (cached?.has(key)) result.set(key, cached.get(key))
          else if (!missing.includes(key)) missing.push(key)
        }
        if (missing.length === 0) return result
        const loaded = await load(missing)
        for (const key of missing) {
          if (!loaded.has(key)) continue
          const value = loaded.get(key)
          result.set(key, value)
          if (!current()) continue
          if (size >= maxEntries) clear()
          let entries = kinds.get(kind)
          if (!entries) kinds.set(kind, (entries = new Map<Key, unknown>()))
          if (!entries.has(key)) size++
          entries.set(key, value)
        }
        return result
      },
    }
  }
  return {
    size: () => size,
    readsAt,
    reads: async (db) => readsAt(await catalogGeneration(db)),
  }
}

/** Reads without a cache (tests, scripts, one-off jobs): every `many` loads. */
export const uncachedReads: CatalogReads = {
  generation: -1n,
  async many(_kind, keys, load) {
    const loaded = await load([...new Set(keys)])
    return new Map(keys.filter((k) => loaded.has(k)).map((k) => [k, loaded.get(k)!]))
  },
}
