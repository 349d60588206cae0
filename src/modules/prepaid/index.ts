import type { FastifyInstance } from 'fastify'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { CatalogCache } from '../catalog/index.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { registerPrepaidRoutes } from './prepaid.routes.ts'
import { ReservationExpiryTimer, type WarningLog } from './reservation-expiry.timer.ts'
import { createReservationService } from './reservation.service.ts'
import { createWalletService } from './wallet.service.ts'
import { createOfferReservationService } from './offer-reservation.service.ts'

export { ReservationExpiryTimer } from './reservation-expiry.timer.ts'
export type { ReservationService } from './reservation.service.ts'

/**
 * Prepaid wallets, counters and usage reservations. The expiry timer is not started here: processes that run jobs
 * start it (`main`), HTTP-only ones leave it stopped; closing the app stops it.
 */
export function createPrepaidModule(deps: {
  db: Db
  clock: Clock
  actorOf: ActorOf
  log: WarningLog
  catalogCache?: CatalogCache
  outbox: Outbox
}) {
  const reservations = createReservationService({
    db: deps.db,
    clock: deps.clock,
    outbox: deps.outbox,
    ...(deps.catalogCache ? { catalogCache: deps.catalogCache } : {}),
  })
  const wallets = createWalletService({ db: deps.db, outbox: deps.outbox })
  const offerReservations = createOfferReservationService({
    db: deps.db,
    clock: deps.clock,
    reservations,
    outbox: deps.outbox,
  })
  const expiry = new ReservationExpiryTimer({ db: deps.db, service: reservations, log: deps.log })
  return {
    reservations,
    wallets,
    expiry,
    routes(app: FastifyInstance) {
      registerPrepaidRoutes(app, { reservations, offerReservations, wallets, actorOf: deps.actorOf })
      app.addHook('onClose', () => expiry.stop())
    },
  }
}
