import type { FastifyInstance } from 'fastify'
import type { Outbox } from '../../kernel/events/index.ts'
import { systemClock, type Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { registerOffersRoutes } from './offers.routes.ts'
import { createOffersService } from './offers.service.ts'
import { routeFamily } from '../../kernel/http/error-handler.ts'
import type { OfferSubscriptions } from '../catalog/index.ts'

export type { OffersService } from './offers.service.ts'

/**
 * The second offer interface (`/v1/catalog/offers`): the same offer rows and rules as `/api/v1/offerTemplates`,
 * in snake_case with portal statuses, ranges, search and bulk. `publicUrl` is the base of its Location and Link URLs.
 */
export function createOffersModule(deps: {
  db: Db
  actorOf: ActorOf
  publicUrl: string
  clock?: Clock
  outbox: Outbox
  /** Ordering's subscription counts, which deleting an offer checks. */
  offerSubscriptions: OfferSubscriptions
}) {
  const service = createOffersService({
    db: deps.db,
    clock: deps.clock ?? systemClock,
    outbox: deps.outbox,
    offerSubscriptions: deps.offerSubscriptions,
  })
  return {
    service,
    // The second offer interface answers in the catalog document's OFFER_* codes.
    routes: (app: FastifyInstance) =>
      routeFamily(app, { family: 'offers', prefixes: ['/v1/catalog/offers'] }, (scope) =>
        registerOffersRoutes(scope, service, deps.actorOf, deps.publicUrl),
      ),
  }
}
