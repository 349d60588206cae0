import type { Db } from '../../kernel/db/database.ts'
import { AppError, type ErrorDetail } from '../../kernel/errors.ts'
import { registry } from '../../kernel/model/index.ts'
import { sellerCodeVisible, type SellerCodes } from '../../kernel/model/row-security.ts'
import * as records from '../../kernel/resources/resource.repository.ts'

/** A seller of an offer. */
export interface OfferSeller {
  readonly id: number
  readonly code: string
}

/**
 * Row-level security carried to the catalog's offers (both interfaces, every write). Offers are catalog data that
 * every `catalog.offers.view` holder reads, seller lists included; what a seller-restricted caller may change is
 * bounded by the sellers it may act for, as `sellerCodeVisible` (row-security.ts) decides for any seller:
 *
 * - it changes only an offer one of its sellers sells by name; an offer without sellers is sold by every seller, so
 *   it is not one of its own (403);
 * - the sellers it cannot see are kept untouched: a seller list it sends sets its own sellers, and the offer keeps
 *   the others it had;
 * - naming a seller it cannot see that the offer does not already have is refused exactly as an unknown code is
 *   (400 `no seller with code '…'`), so codes cannot be probed; one the offer already has is kept, as it reads;
 * - an offer it creates or changes keeps at least one seller, and it deletes only an offer all of whose sellers are
 *   its own (deleting removes every seller).
 */
export function checkOfferWritable(
  code: string,
  sellers: readonly OfferSeller[],
  sellerCodes: SellerCodes,
  intent: 'change' | 'delete',
): void {
  if (sellerCodes === null) return
  if (sellers.length === 0) {
    throw new AppError(
      'FORBIDDEN',
      `Offer ${code} is sold by every seller: only a caller not restricted to sellers may ${intent} it`,
    )
  }
  if (!sellers.some((s) => sellerCodeVisible(s.code, sellerCodes))) {
    throw new AppError('FORBIDDEN', `Offer ${code} is not sold by any of the sellers you may act for`)
  }
  if (intent === 'delete' && sellers.some((s) => !sellerCodeVisible(s.code, sellerCodes))) {
    throw new AppError(
      'FORBIDDEN',
      `Offer ${code} is also sold by sellers you may not act for: only a caller acting for all of them may delete it`,
    )
  }
}

/**
 * The seller ids an offer write leaves (see `checkOfferWritable`): the `sent` codes (undefined: unchanged; the
 * current list of a new offer is empty) for the sellers the caller sees, and the offer's other current sellers. A
 * problem names `field` and the code's index; undefined when the list is unchanged.
 */
export async function offerSellerIds(
  tx: Db,
  current: readonly OfferSeller[],
  sent: readonly string[] | undefined,
  sellerCodes: SellerCodes,
  field: string,
  problems: ErrorDetail[],
): Promise<number[] | undefined> {
  const hidden = current.filter((s) => !sellerCodeVisible(s.code, sellerCodes))
  const ids = new Set<number>()
  let unknown = 0
  for (const [i, code] of (sent ?? []).entries()) {
    const kept = current.find((s) => s.code === code)
    const id =
      kept?.id ??
      (sellerCodeVisible(code, sellerCodes) ? await records.idOfCode(tx, registry.get('Seller'), code) : undefined)
    if (id !== undefined) ids.add(id)
    else {
      unknown++
      problems.push({ field: `${field}[${i}]`, message: `no seller with code '${code}'` })
    }
  }
  for (const s of hidden) ids.add(s.id)
  const after = sent === undefined ? current.length : ids.size
  if (sellerCodes !== null && after === 0 && unknown === 0) {
    problems.push({
      field,
      message: `expected at least one of the sellers you may act for (${sellerCodes.join(', ')}): an offer without sellers is sold by every seller`,
    })
  }
  return sent === undefined ? undefined : [...ids]
}
