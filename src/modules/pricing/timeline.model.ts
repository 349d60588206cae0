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
      /** The start given to a first version published without one, when it starts on a day (products). */
      startAt?: string
    }
  | { ok: false; reason: string }

/**
 * Whether `candidate` may be published after `latest` (the published version starting last), and how the
 * predecessor is closed so that no two published versions overlap (end-exclusive timeline). A candidate must start
 * strictly after the latest start. Without a start date it may only be the first: a pricing version then applies from
 * the beginning (`firstStartsOn` null), a product version from `firstStartsOn` (the publish day), which its end, if
 * any, must follow.
 */
export function planPublication(
  candidate: TimelineVersion,
  latest: TimelineVersion | undefined,
  options: { firstStartsOn: string | null },
): PublicationPlan {
  if (candidate.validFrom === null && latest) {
    return {
      ok: false,
      reason: `version ${candidate.version} has no start date (validFrom), so it cannot follow published version ${latest.version}`,
    }
  }
  if (candidate.validFrom === null) {
    const start = options.firstStartsOn
    if (start === null) return { ok: true, closePredecessorAt: null }
    if (candidate.validTo !== null && candidate.validTo <= start) {
      return {
        ok: false,
        reason: `version ${candidate.version} has no start date (validFrom) and ends on ${candidate.validTo}: published today it would start on ${start}, not before its end`,
      }
    }
    return { ok: true, closePredecessorAt: null, startAt: start }
  }
  if (!latest) return { ok: true, closePredecessorAt: null }
  if (latest.validFrom !== null && candidate.validFrom <= latest.validFrom) {
    return {
      ok: false,
      reason: `version ${candidate.version} starts on ${candidate.validFrom}, at or before the start of published version ${latest.version} (${latest.validFrom})`,
    }
  }
  const overlaps = latest.validTo === null || latest.validTo > candidate.validFrom
  return { ok: true, closePredecessorAt: overlaps ? candidate.validFrom : null }
}

/**
 * The version of a timeline valid on a day, the one rule every price lookup uses: its start (inclusive) is on or
 * before the day or open, its end (exclusive) after the day or open; when several hold the day, the one starting
 * latest (an open start counts as the earliest), then the highest version number. Publication keeps published
 * versions from overlapping, so the tie-breaks only matter for data written around it.
 */
export function versionOn<V extends TimelineVersion>(versions: readonly V[], day: string): V | undefined {
  let chosen: V | undefined
  for (const v of versions) {
    if (v.validFrom !== null && v.validFrom > day) continue
    if (v.validTo !== null && v.validTo <= day) continue
    if (chosen === undefined || startsAfter(v, chosen)) chosen = v
  }
  return chosen
}

function startsAfter(a: TimelineVersion, b: TimelineVersion): boolean {
  const from = (a.validFrom ?? '').localeCompare(b.validFrom ?? '')
  return from !== 0 ? from > 0 : a.version > b.version
}
