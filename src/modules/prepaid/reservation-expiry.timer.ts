import type { Db } from '../../kernel/db/database.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import type { ReservationService } from './reservation.service.ts'

export interface WarningLog {
  warn(object: unknown, message: string): void
}

/**
 * The loop expiring due OPEN reservations: one sweep (`ReservationService.expireDue`, claiming rows with
 * `for update skip locked`) every `reservationSweepIntervalMs` (a tenant setting, 1 s by default), not one job per
 * reservation. Due dates are compared with the injected clock; any number of instances may sweep, each reservation
 * expires once. The first sweep runs at start, so reservations that fell due while every instance was down expire then.
 */
export class ReservationExpiryTimer {
  private handle: NodeJS.Timeout | undefined
  private current: Promise<unknown> | undefined
  private started = false

  private readonly deps: { db: Db; service: ReservationService; log: WarningLog }

  constructor(deps: { db: Db; service: ReservationService; log: WarningLog }) {
    this.deps = deps
  }

  get running(): boolean {
    return this.started
  }

  /** Starts sweeping; resolves once the first sweep (the one at start) has run. */
  start(): Promise<void> {
    if (this.started) return Promise.resolve()
    this.started = true
    return new Promise((resolve) => this.next(0, resolve))
  }

  /** Stops sweeping and waits for a sweep in progress to finish (its transactions commit or roll back). */
  async stop(): Promise<void> {
    this.started = false
    clearTimeout(this.handle)
    this.handle = undefined
    await this.current
  }

  private next(delayMs: number, swept?: () => void): void {
    this.handle = setTimeout(() => {
      this.current = this.tick()
        .catch((error: unknown) => this.deps.log.warn({ err: error }, 'reservation expiry sweep failed'))
        .finally(() => swept?.())
        .then(() => cachedTenantSettings(this.deps.db))
        .then(
          (settings) => settings.reservationSweepIntervalMs,
          () => 1000,
        )
        .then((interval) => {
          this.current = undefined
          if (this.started) this.next(interval)
        })
    }, delayMs)
    this.handle.unref()
  }

  /** One sweep: expires every reservation due now; returns how many. */
  tick(): Promise<number> {
    return this.deps.service.expireDue()
  }
}
