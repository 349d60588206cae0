import { versionOn } from '../pricing/index.ts'

/** A product version as the selection rule sees it: days are `yyyy-MM-dd`, `validTo` is exclusive. */
export interface DatedVersion {
  version: number
  status: string
  validFrom: string | null
  validTo: string | null
}

/**
 * The version of a product in effect on a day: among its PUBLISHED versions, the one valid that day by the
 * timeline's one rule that prices use too (`versionOn`: no start = since always, no end = open, the one starting
 * last when several do, the higher number on a tie).
 */
export function versionValidOn<V extends DatedVersion>(versions: readonly V[], day: string): V | undefined {
  return versionOn(
    versions.filter((v) => v.status === 'PUBLISHED'),
    day,
  )
}
