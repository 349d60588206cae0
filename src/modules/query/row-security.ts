import { sql, type SQL } from 'drizzle-orm'
import type { Caller } from '../../kernel/caller.ts'
import type { EntityDef, EntityRegistry } from '../../kernel/model/index.ts'
import { sellerRestriction, type SellerCodes } from '../../kernel/model/row-security.ts'

/** Who reads, as far as row-level security is concerned. */
export interface RowReader {
  /** The seller codes the caller may see; null when unrestricted. */
  readonly sellerCodes: SellerCodes
  /** The caller, for entities that declare a row policy (saved queries' visibility). */
  readonly viewer?: Caller | undefined
  /** Set when a row policy read the viewer: the statement is then the viewer's own (not shared in the cache). */
  readonly trace?: { viewerUsed: boolean } | undefined
}

/**
 * Row-level security of the Query API, Deep queries and saved report queries: the rows of `entity` (as `alias`) the
 * reader may see. Both rules must hold:
 * - seller scoping: a row of a business entity is visible when the seller its registry `sellerPath` leads to has one
 *   of the reader's seller codes (child sellers are not included); an unrestricted reader sees every seller. This is
 *   the kernel's `sellerRestriction`, the rule the v1 resources apply to their reads and writes too;
 * - the entity's row policy, when it declares one (in its registry definition), applied to the viewer: a saved query
 *   is visible when it is a system or public query, the viewer's own, or protected and shared with a group of theirs;
 *   report executions, workbench audit entries and Expert runs are the viewer's own. queryManagement (and
 *   api.audit.view for the audit) lifts the policy.
 *
 * The compiler applies it wherever a statement reads a table: the root rows, every many-to-one join (rows the reader
 * may not see are not joined, so filters, sorting and grouping through them cannot reveal them), Deep queries'
 * explicit joins, the EXISTS of a collection condition, and nested objects and collections. Undefined when nothing
 * restricts the rows. `newAlias` names the sub-selects of the seller path (numbered with the rest of the statement).
 */
export function rowRestriction(
  registry: EntityRegistry,
  entity: EntityDef,
  alias: string,
  reader: RowReader,
  newAlias: (hint: string) => string,
): SQL | undefined {
  const viewer = reader.viewer
  if (entity.rowPolicy && viewer && reader.trace) reader.trace.viewerUsed = true
  const policy = entity.rowPolicy && viewer ? entity.rowPolicy(sql`${sql.identifier(alias)}`, viewer) : undefined
  const sellers = sellerRestriction(registry, entity, alias, reader.sellerCodes, newAlias)
  if (!sellers) return policy
  return policy ? sql`(${sellers} and ${policy})` : sellers
}
