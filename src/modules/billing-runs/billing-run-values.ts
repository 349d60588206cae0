/** The enumerated values of a billing-run schedule, read by the rules (billing-runs.model.ts) and the schemas. */
export const REPEATS = ['NONE', 'DAILY', 'WEEKLY', 'MONTHLY'] as const
export const PROCESS_TYPES = ['AUTOMATIC', 'MANUAL', 'FULL_AUTOMATIC'] as const
export const AUTO_ACTIONS = ['MOVE', 'CANCEL', 'CANCEL_RT', 'AUTOMATIC_VALIDATION', 'MANUAL_ACTION'] as const
export const DATE_AGGREGATIONS = ['NONE', 'DAY', 'WEEK', 'MONTH'] as const
