import type { Db } from '../../kernel/db/database.ts'
import { inTurn } from '../../kernel/db/in-turn.ts'
import { entryOf } from '../../kernel/invariant.ts'
import { taxClassCodes, taxMappingsOf, type TaxMappingRow } from '../accounts/index.ts'
import {
  chargesById,
  offersByCode,
  productsByCode,
  serviceCharges,
  versionContents,
  type CatalogReads,
} from '../catalog/index.ts'
import { discountPlansOf } from '../discounts/index.ts'
import { pricingOn, type PublishedPricing } from '../pricing/index.ts'

const byKey = <K, V>(values: readonly V[], keyOf: (value: V) => K) => new Map(values.map((v) => [keyOf(v), v]))

/**
 * The catalog reads of order resolution through the catalog cache: each kind of row is looked up by the key the
 * resolution asks with and loaded by the repository only when missing. Cached rows are shared between requests and
 * must not be changed. Inside a transaction that changes the catalog, the change is not visible here before its
 * commit raises the generation: only order placement reads through it, and it changes no catalog row rating reads.
 */
export function cachedCatalog(db: Db, reads: CatalogReads) {
  const plans = async (select: { codes?: readonly string[]; ids?: readonly number[] }) => {
    const [byCode, byId] = await inTurn(
      () =>
        reads.many('discountPlanCode', select.codes ?? [], async (codes) =>
          byKey(await discountPlansOf(db, { codes }), (p) => p.code),
        ),
      () =>
        reads.many('discountPlanId', select.ids ?? [], async (ids) =>
          byKey(await discountPlansOf(db, { ids }), (p) => p.id),
        ),
    )
    return [...new Map([...byCode.values(), ...byId.values()].map((p) => [p.id, p])).values()]
  }
  return {
    offersByCode: (codes: readonly string[]) => reads.many('offer', codes, (m) => offersByCode(db, m)),
    productsByCode: (codes: readonly string[]) => reads.many('product', codes, (m) => productsByCode(db, m)),
    versionContents: (ids: readonly number[]) => reads.many('versionContent', ids, (m) => versionContents(db, m)),
    serviceCharges: (ids: readonly number[]) => reads.many('serviceCharges', ids, (m) => serviceCharges(db, m)),
    chargesById: (ids: readonly number[]) => reads.many('charge', ids, (m) => chargesById(db, m)),
    /** Keyed `chargeId@day`, as `pricingOn`. */
    pricingOn: (wanted: readonly { chargeId: number; day: string }[]): Promise<Map<string, PublishedPricing>> => {
      const byKey = new Map(wanted.map((w) => [`${w.chargeId}@${w.day}`, w]))
      return reads.many('pricing', [...byKey.keys()], (keys) =>
        pricingOn(
          db,
          keys.map((key) => entryOf(byKey, key, 'price wanted')),
        ),
      )
    },
    discountPlansOf: plans,
    /** The tax mappings of tax classes (a class without mapping is remembered as such). */
    taxMappingsOf: async (taxClassIds: readonly number[]): Promise<TaxMappingRow[]> => {
      const found = await reads.many('taxMappings', taxClassIds, async (ids) => {
        const mappings = await taxMappingsOf(db, ids)
        return new Map(ids.map((id) => [id, mappings.filter((m) => m.taxClassId === id)]))
      })
      return [...found.values()].flat()
    },
    /** Tax class codes, which messages name (tax classes raise the generation as the mappings do). */
    taxClassCodes: (ids: readonly number[]) => reads.many('taxClassCode', ids, (m) => taxClassCodes(db, m)),
  }
}

/** The catalog reads of one order resolution, bound to its database handle and its catalog generation. */
export type CatalogLookups = ReturnType<typeof cachedCatalog>
