/** A product version as the selection rule sees it: days are `yyyy-MM-dd`, `validTo` is exclusive. */
export interface DatedVersion {
  version: number
  status: string
  validFrom: string | null
  validTo: string | null
}

/**
 * The version of a product in effect on a day: the latest PUBLISHED version covering the day (no start = since
 * always, no end = open), the one starting last when several do, the higher number on a tie.
 */
export function versionValidOn<V extends DatedVersion>(versions: readonly V[], day: string): V | undefined {
  return versions
    .filter(
      (v) =>
        v.status === 'PUBLISHED' &&
        (v.validFrom === null || v.validFrom <= day) &&
        (v.validTo === null || v.validTo > day),
    )
    .sort((a, b) => (b.validFrom ?? '').localeCompare(a.validFrom ?? '') || b.version - a.version)[0]
}
