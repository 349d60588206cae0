/** Time is injected so schedules, expiries and audits can be tested without sleeping. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export class FakeClock implements Clock {
  private current: number
  constructor(start: Date | string) {
    this.current = new Date(start).getTime()
  }
  now(): Date {
    return new Date(this.current)
  }
  set(to: Date | string): void {
    this.current = new Date(to).getTime()
  }
  advance(ms: number): void {
    this.current += ms
  }
}
