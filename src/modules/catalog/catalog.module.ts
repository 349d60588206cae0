import type { FastifyInstance } from 'fastify'
import { systemClock, type Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { registry } from '../../kernel/model/index.ts'
import { defaultPageLimit } from '../../kernel/http/pagination.ts'
import type { Resource, ResourceSpec } from '../../kernel/resources/resource.model.ts'
import { createResourceService } from '../../kernel/resources/resource.service.ts'
import { registerResourceRoutes, type ActorOf } from '../../kernel/resources/resource.routes.ts'
import { createPricingModule } from '../pricing/index.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { catalogResources } from './catalog.resources.ts'
import { registerChargeRoutes } from './charge.routes.ts'
import { createChargeService } from './charge.service.ts'
import { createDiscountsModule } from '../discounts/index.ts'
import { registerOfferTemplateRoutes } from './offer-template.routes.ts'
import { createOfferTemplateService, withoutOrdering, type OfferSubscriptions } from './offer-template.service.ts'
import { registerProductRoutes } from './product.routes.ts'
import { createProductService } from './product.service.ts'
import { registerServiceTemplateRoutes } from './service-template.routes.ts'
import { createServiceTemplateService } from './service-template.service.ts'

function toResource(spec: ResourceSpec): Resource {
  const def = registry.get(spec.entity)
  return { ...spec, def, writableFields: [...def.fields.values()].filter((f) => !f.readOnly) }
}

/**
 * The catalog: attributes, charges, products and versions, offers (v1), services; with the pricing module (pricing
 * versions of charges) and the discounts module (discount plans), wired here so the app adds one module.
 */
export function createCatalogModule(deps: {
  db: Db
  actorOf: ActorOf
  clock?: Clock
  outbox: Outbox
  /** Ordering's subscription counts, which deleting an offer checks (absent: the catalog deletes no offer). */
  offerSubscriptions?: OfferSubscriptions
}) {
  const defaultLimit = () => defaultPageLimit(deps.db)
  const records = (entity: string, path: string, roleResource: string, label: string) =>
    createResourceService({ resource: toResource({ entity, path, roleResource, label }), db: deps.db, defaultLimit })
  const resources = new Map(
    catalogResources.map((spec) => [
      spec.entity,
      createResourceService({ resource: toResource(spec), db: deps.db, defaultLimit }),
    ]),
  )
  const charges = createChargeService({
    db: deps.db,
    records: records('ChargeTemplate', 'charges', 'catalog.charges', 'charge'),
  })
  const products = createProductService({ db: deps.db, clock: deps.clock ?? systemClock })
  const offers = createOfferTemplateService({
    db: deps.db,
    records: records('OfferTemplate', 'offerTemplates', 'catalog.offers', 'offer template'),
    outbox: deps.outbox,
    offerSubscriptions: deps.offerSubscriptions ?? withoutOrdering,
  })
  const services = createServiceTemplateService({
    db: deps.db,
    records: records('ServiceTemplate', 'serviceTemplates', 'catalog.services', 'service template'),
  })
  const pricing = createPricingModule(deps)
  const discounts = createDiscountsModule(deps)
  return {
    /** The plain resources: attributes, products, offer template categories. */
    records: {
      attributes: resources.get('Attribute')!,
      products: resources.get('Product')!,
      offerTemplateCategories: resources.get('OfferTemplateCategory')!,
    },
    charges,
    products,
    offers,
    services,
    pricing: pricing.service,
    discounts: discounts.service,
    routes: (app: FastifyInstance) => {
      for (const service of resources.values()) registerResourceRoutes(app, service, deps.actorOf)
      registerChargeRoutes(app, charges, deps.actorOf)
      pricing.routes(app)
      registerProductRoutes(app, products, deps.actorOf)
      registerOfferTemplateRoutes(app, offers)
      registerServiceTemplateRoutes(app, services, deps.actorOf)
      discounts.routes(app)
    },
  }
}
