import type { Db } from '../../kernel/db/database.ts'
import { validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { present } from '../../kernel/invariant.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import { dayIn } from '../../kernel/time-zone.ts'
import { selectDiscounts, withArticles } from './order-discount-selection.ts'
import { chargedOffers, offerLines } from './order-lines.ts'
import { partiesOf } from './order-parties.ts'
import { chargePrices, orderTaxes, resolvedOffers, resolvedPlans } from './order-pricing.ts'
import type { OrderInput, ResolvedOrder } from './order.model.ts'
import { uncachedReads, type CatalogCache } from '../catalog/index.ts'
import { cachedCatalog } from './cached-catalog.ts'

export interface ResolveOptions {
  readonly now: Date
  /** Row-level restriction of the caller: the sellers it may order for (null: any). */
  readonly sellerCodes: readonly string[] | null
  /** The instance's catalog cache; without one, every catalog row is read from the database. */
  readonly catalogCache?: CatalogCache
}

/**
 * Checks an order against the accounts and the catalog and gathers what rating needs, in named steps: the parties
 * (`partiesOf`), the offer and product lines (`offerLines`), their attributes, overrides and charges
 * (`chargedOffers`), the discount selection (`selectDiscounts`), then prices and taxes (`chargePrices`,
 * `orderTaxes`). The first four collect every bad reference as a 400 naming the field and the code before any
 * failing; a plan item without accounting article is VALIDATE_FAILED, a missing price PRICE_NOT_FOUND, a missing tax
 * TAX_NOT_FOUND. Creates nothing: preview, creation and validation all start here.
 */
export async function resolveOrder(db: Db, input: OrderInput, options: ResolveOptions): Promise<ResolvedOrder> {
  const { timeZone, pricesIncludeTax } = await cachedTenantSettings(db)
  const today = dayIn(options.now, timeZone)
  const problems: ErrorDetail[] = []

  const { seller, parties: found, catalogGeneration } = await partiesOf(db, input, options.sellerCodes, problems)
  const catalog = cachedCatalog(db, options.catalogCache?.readsAt(catalogGeneration) ?? uncachedReads)
  const lines = await offerLines(catalog, input, { today, timeZone, seller }, problems)
  const charged = await chargedOffers(catalog, lines, problems)
  const selected = await selectDiscounts(catalog, input, lines, problems)
  if (problems.length > 0) throw validationError(problems)
  // Each missing party added a problem above.
  const parties = present(found, 'parties of an order without problems')
  const plans = withArticles(selected)

  const prices = await chargePrices(catalog, charged, parties.billingAccount, problems)
  if (problems.length > 0) throw validationError(problems)
  const taxOf = await orderTaxes(catalog, charged, plans, parties)
  const offers = await resolvedOffers(charged, prices, taxOf)

  const { seller: orderSeller, billingAccount, userAccount } = parties
  return {
    input,
    timeZone,
    pricesIncludeTax,
    seller: orderSeller,
    billingAccount: { id: billingAccount.id, code: billingAccount.code, countryId: billingAccount.countryId },
    userAccount: { id: userAccount.id, code: userAccount.code },
    currency: {
      id: billingAccount.currencyId,
      code: billingAccount.currencyCode,
      minorUnits: billingAccount.minorUnits,
    },
    offers,
    plans: await resolvedPlans(plans, offers, taxOf),
  }
}
