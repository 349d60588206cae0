/**
 * The caller's row-level restriction: the seller codes it may see when every group of theirs carries a seller list,
 * null when it is unrestricted.
 */
export type SellerCodes = readonly string[] | null

/**
 * Who is calling: the one shape every service takes. Authentication builds it from the token or the portal session
 * (the `Principal` adds the token's own facts); a module acting under its own authority (a job, the demo data) uses
 * `systemCaller`. A service needing less of it names the part it reads (`Pick<Caller, 'username'>`).
 */
export interface Caller {
  /** Recorded as creator / updater. */
  readonly username: string
  /** Roles from the caller's groups at token issue time. */
  readonly roles: ReadonlySet<string>
  readonly groups: readonly string[]
  readonly sellerCodes: SellerCodes
}

/**
 * The caller of work the platform does on its own (jobs, demo data, one module's use case run for another under the
 * first one's authorization): unrestricted by seller and holding no role, so a rule asking for a role beyond the
 * route's refuses it.
 */
export function systemCaller(username: string): Caller {
  return { username, roles: new Set(), groups: [], sellerCodes: null }
}
