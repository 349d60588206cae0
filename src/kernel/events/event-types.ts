/** The event types Obol emits (invoicing-events.md §5), the catalogue endpoints subscribe from. */
export const EVENT_TYPES = [
  'order.created',
  'order.validated',
  'subscription.created',
  'subscription.terminated',
  'wallet.credited',
  'wallet.balance_low',
  'reservation.created',
  'reservation.confirmed',
  'reservation.cancelled',
  'reservation.expired',
  'price.published',
  'offer.status_changed',
  'bill_run.created',
  'bill_run.status_changed',
  'invoice.created',
  'invoice.validated',
  'invoice.cancelled',
  'invoice.pdf_ready',
  'credit_note.created',
  'workbench.expert_run.finished',
  'webhook_endpoint.disabled',
  'webhook.test',
] as const

export type EventType = (typeof EVENT_TYPES)[number]
