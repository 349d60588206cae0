export { createCatalogModule } from './catalog.module.ts'
export {
  canMoveOffer,
  DEFAULT_STATUS,
  DRAFT_STATUSES,
  INITIAL_STATUSES,
  isOfferStatus,
  isOrderableStatus,
  OFFER_STATUSES,
  ORDERABLE_STATUSES,
  PORTAL_STATUS,
  type OfferStatus,
} from './offer-status.model.ts'
export { seedCatalogDemo } from './demo-data.ts'
export { versionValidOn, type DatedVersion } from './product-version.model.ts'
/** Offer writes shared by both offer interfaces: the same rules, each problem in the caller's dialect. */
export {
  addOfferProduct,
  createOffer,
  deleteOffer,
  removeOfferProduct,
  updateOffer,
  type OfferComponentInput,
  type OfferDialect,
  type OfferServiceInput,
  type OfferSubscriptions,
  type OfferWrite,
} from './offer-template.service.ts'
export { instantSql } from './offer-template.repository.ts'
/** Batched reads of offers, products, their versions' contents and charges, for ordering and the ratings. */
export {
  chargesById,
  offersByCode,
  productsByCode,
  offerProducts,
  serviceCharges,
  versionContents,
  type AttributeRow,
  type ChargeRow,
  type OfferRow,
  type ProductRow,
  type ProductVersionRow,
  type VersionContent,
} from './catalog-lookup.repository.ts'
/** The in-process catalog cache of order rating, checked per request against the catalog generation. */
export {
  catalogGeneration,
  catalogGenerationSql,
  createCatalogCache,
  uncachedReads,
  type CatalogCache,
  type CatalogReads,
} from './catalog-cache.ts'
/** The catalog joins of a usage reservation's statements (aliases `ot`, `ct`, `p`, `t`, `c`). */
export {
  chargeCounterTemplateColumn,
  chargeMatchesParam1,
  chargeTemplateJoin,
  chargeUnfiltered,
  counterTemplateColumns,
  counterTemplateJoins,
  counterTemplateOf,
  offerCodeColumn,
  offerTemplateJoin,
  productCodeColumn,
  productJoin,
  type CounterTemplateRow,
} from './usage-lookup.repository.ts'
/** The searches of the second offer interface (module offers) over the offer tables. */
export * as offerSearch from './offer-search.repository.ts'
export {
  INSTANT_FIELDS,
  LIST_FIELDS,
  SORT_KEYS,
  TEXT_FIELDS,
  type Comparison,
  type Condition,
  type InstantField,
  type ListField,
  type SortField,
  type SortKey,
  type TextField,
} from './offer-search.model.ts'
