import type { Principal } from '../../kernel/http/principal.ts'

export const VISIBILITIES = ['PUBLIC', 'PROTECTED', 'PRIVATE'] as const
export type Visibility = (typeof VISIBILITIES)[number]

/** advancedQuery takes the Query API's POST names, minus paging: sync execution is capped and cannot be paged. */
export const ADVANCED_QUERY_KEYS = [
  'filters',
  'genericFields',
  'nestedEntities',
  'nestedDepth',
  'sortBy',
  'sortOrder',
  'groupBy',
  'having',
  'joinType',
  'excluding',
] as const

export const SYNC_ROW_CAP = 100

/**
 * The roles native SQL needs, on every path: submitting it, saving, changing or replacing a NATIVE_SQL query (its
 * owner's or another's, query manager or not), scheduling one, and when a schedule fires (its owner's roles then).
 */
export const EXPERT_ROLES = ['queryUser', 'queryExpert'] as const

/** The first role of EXPERT_ROLES the caller lacks, if any. */
export const missingExpertRole = (principal: Principal): string | undefined =>
  EXPERT_ROLES.find((role) => !principal.roles.has(role))

export interface StoredReportQuery {
  id: number
  code: string
  description: string | null
  targetEntity: string | null
  visibility: Visibility
  tags: string[]
  aliases: Record<string, string>
  advancedQuery: Record<string, unknown> | null
  queryType: 'VISUAL' | 'HQL' | 'NATIVE_SQL'
  queryText: string | null
  system: boolean
  ownerGroups: string[]
  creator: string | null
}

/** Who may see a saved query (docs/decisions.md, "Saved report queries"); invisible behaves as absent. */
export function isVisible(query: StoredReportQuery, principal: Principal): boolean {
  if (principal.roles.has('queryManagement') || query.system) return true
  if (query.creator === principal.username) return true
  switch (query.visibility) {
    case 'PUBLIC':
      return true
    case 'PROTECTED':
      return query.ownerGroups.some((g) => principal.groups.includes(g))
    case 'PRIVATE':
      return false
  }
}

/** Owners edit their queries; queryManagement edits anyone's. System queries are never edited (409). */
export function canEdit(query: StoredReportQuery, principal: Principal): boolean {
  return principal.roles.has('queryManagement') || query.creator === principal.username
}

/** The ReportQueryV1 wire form. */
export function toWire(query: StoredReportQuery) {
  return {
    code: query.code,
    description: query.description,
    targetEntity: query.targetEntity,
    visibility: query.visibility,
    tags: query.tags,
    aliases: query.aliases,
    advancedQuery: query.advancedQuery,
    ...(query.queryText !== null ? { queryText: query.queryText } : {}),
    queryType: query.queryType,
    system: query.system,
  }
}
