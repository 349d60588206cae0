import { isoInstant } from '../../kernel/model/json.ts'

/** Wire forms shared by the catalog resources: instants in the kernel's one format, the audit block. */
export { isoInstant }

export interface AuditColumns {
  created: Date
  updated: Date | null
  creator: string | null
  updater: string | null
}

export function auditable(row: AuditColumns) {
  return {
    created: isoInstant(row.created),
    updated: isoInstant(row.updated),
    creator: row.creator,
    updater: row.updater,
  }
}
