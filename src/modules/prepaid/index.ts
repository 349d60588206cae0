import type { FastifyInstance } from 'fastify'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { CatalogCache } from '../catalog/index.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { JobRuntime } from '../../kernel/jobs/job-runtime.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import { registerPrepaidRoutes } from './prepaid.routes.ts'
import { createReservationService } from './reservation.service.ts'
import { createWalletService } from './wallet.service.ts'
import { createOfferReservationService } from './offer-reservation.service.ts'

/** The job runtime's recurring task expiring due reservations. */
export const RESERVATION_EXPIRY_TASK = 'reservation-expiry'
export type { ReservationService } from './reservation.service.ts'

/**
 * Prepaid wallets, counters and usage reservations. Due OPEN reservations expire in a recurring task of the job
 * runtime (processes that run jobs, from its start to its stop): one sweep (`ReservationService.expireDue`, claiming
 * rows with `for update skip locked`) every `reservationSweepIntervalMs` (a tenant setting, 1 s by default), not one
 * job per reservation. Due dates are compared with the injected clock; any number of instances may sweep, each
 * reservation expires once. The first sweep runs at start, so reservations that fell due while every instance was
 * down expire then.
 */
export function createPrepaidModule(deps: {
  db: Db
  clock: Clock
  actorOf: ActorOf
  jobs: JobRuntime
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
  const expiry = deps.jobs.every(
    RESERVATION_EXPIRY_TASK,
    async () => (await cachedTenantSettings(deps.db)).reservationSweepIntervalMs,
    () => reservations.expireDue(),
  )
  return {
    reservations,
    wallets,
    expiry,
    routes(app: FastifyInstance) {
      registerPrepaidRoutes(app, { reservations, offerReservations, wallets, actorOf: deps.actorOf })
    },
  }
}
