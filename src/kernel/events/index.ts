export {
  createOutbox,
  type BatchEventInput,
  type EmittedEvent,
  type EventInput,
  type EventListener,
  type EventSql,
  type Outbox,
} from './outbox.ts'
export { eventId } from './event-id.ts'
export { EVENT_TYPES, type EventType } from './event-types.ts'
