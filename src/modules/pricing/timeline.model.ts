/** A version on a validity timeline: dates are yyyy-MM-dd, `validTo` exclusive, null meaning open. */
export interface TimelineVersion {
  version: number
  validFrom: string | null
  validTo: string | null
}

export type PublicationPlan =
  | {
      ok: true
      /** The predecessor's new end (the candidate's start), or null when it already ends before the candidate. */
      closePredecessorAt: string | null
    }
  | { ok: false; reason: string }

/**
 * Whether `candidate` may be published after `latest` (the published version starting last), and how the
 * predecessor is closed so that no two published versions overlap (end-exclusive timeline). A candidate must start
 * strictly after the latest start; without a start date it may only be the first (pricing) or never (products).
 */
export function planPublication(
  candidate: TimelineVersion,
  latest: TimelineVersion | undefined,
  options: { requireStart: boolean },
): PublicationPlan {
  if (candidate.validFrom === null && options.requireStart) {
    return { ok: false, reason: `version ${candidate.version} has no start date (validFrom)` }
  }
  if (!latest) return { ok: true, closePredecessorAt: null }
  if (candidate.validFrom === null) {
    return {
      ok: false,
      reason: `version ${candidate.version} has no start date (validFrom), so it cannot follow published version ${latest.version}`,
    }
  }
  if (latest.validFrom !== null && candidate.validFrom <= latest.validFrom) {
    return {
      ok: false,
      reason: `version ${candidate.version} starts on ${candidate.validFrom}, at or before the start of published version ${latest.version} (${latest.validFrom})`,
    }
  }
  const overlaps = latest.validTo === null || latest.validTo > candidate.validFrom
  return { ok: true, closePredecessorAt: overlaps ? candidate.validFrom : null }
}
