import type { BillingRunScheduleService, WarningLog } from './billing-run-schedule.service.ts'

/** Firing granularity is the second: poll well within it. */
export const DEFAULT_POLL_INTERVAL_MS = 500
const BATCH = 200

export interface ScheduleTimerOptions {
  service: BillingRunScheduleService
  log: WarningLog
  /** Pause between two polls (the next poll starts this long after the previous one ended). */
  pollIntervalMs?: number
  /** Recorded on each firing: the application instance that fired it. */
  instanceId: string
}

/**
 * The loop firing due billing run schedules. Timers live in PostgreSQL and are compared with the database clock;
 * any number of instances may poll, each due time fires once (see `BillingRunScheduleService.fireDue`). The first
 * poll runs at start, so a firing missed while every instance was down runs then, once.
 */
export class BillingRunScheduleTimer {
  private readonly options: ScheduleTimerOptions
  private handle: NodeJS.Timeout | undefined
  private current: Promise<unknown> | undefined
  private started = false

  constructor(options: ScheduleTimerOptions) {
    this.options = options
  }

  get running(): boolean {
    return this.started
  }

  start(): void {
    if (this.started) return
    this.started = true
    this.next(0)
  }

  /** Stops polling and waits for a poll in progress to finish (its transactions commit or roll back). */
  async stop(): Promise<void> {
    this.started = false
    clearTimeout(this.handle)
    this.handle = undefined
    await this.current
  }

  private next(delayMs: number): void {
    this.handle = setTimeout(() => {
      this.current = this.tick()
        .catch((error: unknown) => this.options.log.warn({ err: error }, 'billing run schedule poll failed'))
        .finally(() => {
          this.current = undefined
          if (this.started) this.next(this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS)
        })
    }, delayMs)
    this.handle.unref()
  }

  /** One poll: fires every due schedule (up to a batch), then completes paused schedules past their end. */
  async tick(): Promise<number> {
    const { service, log, instanceId } = this.options
    let fired = 0
    for (const due of await service.dueSchedules(BATCH)) {
      try {
        if (await service.fireDue(due.id, due.due, instanceId)) fired++
      } catch (error) {
        log.warn(
          { err: error, scheduleId: due.id, due: due.due },
          'billing run schedule firing failed; retried next poll',
        )
      }
    }
    await service.completeEnded()
    return fired
  }
}
