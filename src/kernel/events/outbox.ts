import { sql } from 'drizzle-orm'
import { one, type Db } from '../db/database.ts'
import type { Clock } from '../clock.ts'
import { eventId } from './event-id.ts'

/** A state change to report: its type, the record it is about, the record as its v1 resource shows it after. */
export interface EventInput {
  readonly type: string
  readonly aggregate: { readonly type: string; readonly id: string | number }
  /** The record as its v1 resource shows it after the change (JSON-serializable). */
  readonly object: unknown
  /** The changed fields' former values, where there are some. */
  readonly previous?: Record<string, unknown>
  /** The seller the record belongs to (seller row security on events and deliveries); none for platform records. */
  readonly sellerId?: number | null
}

/** An event as written: its public id and what listeners need to route it. */
export interface EmittedEvent {
  readonly id: number
  readonly eventId: string
  readonly type: string
  readonly sellerId: number | null
}

/** Called in the emitting transaction for every event: the webhooks module creates its deliveries there. */
export type EventListener = (tx: Db, event: EmittedEvent) => Promise<void>

/**
 * The outbox, the one way a module reports a change: `emit` writes the event in the caller's transaction (a change
 * rolled back emits nothing; one committed is never lost), numbered per record (`sequence`, under the record's row
 * in `event_aggregate`, so two events of one record are ordered even when their changes race), then tells the
 * listeners in the same transaction. Nothing domain-specific: the caller gives the record as its resource shows it.
 */
export function createOutbox(deps: { clock: Clock }) {
  const listeners: EventListener[] = []
  return {
    listen(listener: EventListener): void {
      listeners.push(listener)
    },

    async emit(tx: Db, input: EventInput): Promise<EmittedEvent> {
      const aggregateId = String(input.aggregate.id)
      const numbered = await one<{ last: unknown }>(
        tx,
        sql`insert into event_aggregate (aggregate_type, aggregate_id, last_sequence)
          values (${input.aggregate.type}, ${aggregateId}, 1)
          on conflict (aggregate_type, aggregate_id) do update set last_sequence = event_aggregate.last_sequence + 1
          returning last_sequence as last`,
      )
      const at = deps.clock.now()
      const id = eventId(at)
      const data = input.previous ? { object: input.object, previous: input.previous } : { object: input.object }
      const written = await one<{ id: unknown }>(
        tx,
        sql`insert into event (event_id, event_type, occurred_at, aggregate_type, aggregate_id, sequence, data, seller_id)
          values (${id}, ${input.type}, ${at.toISOString()}::timestamptz, ${input.aggregate.type}, ${aggregateId},
            ${Number(numbered!.last)}, ${JSON.stringify(data)}::jsonb, ${input.sellerId ?? null})
          returning id`,
      )
      const event: EmittedEvent = {
        id: Number(written!.id),
        eventId: id,
        type: input.type,
        sellerId: input.sellerId ?? null,
      }
      for (const listener of listeners) await listener(tx, event)
      return event
    },
  }
}

export type Outbox = ReturnType<typeof createOutbox>
