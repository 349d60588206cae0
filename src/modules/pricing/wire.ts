/** Wire forms shared by the catalog resources: ISO-8601 instants without milliseconds, the audit block. */
export function isoInstant(value: Date | null): string | null {
  return value === null ? null : value.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

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
