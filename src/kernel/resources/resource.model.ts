import type { EntityDef, FieldDef } from '../model/index.ts'
import type { ErrorDetail } from '../errors.ts'
import type { Db } from '../db/database.ts'
import { describePattern } from '../http/validation.ts'

/** What a plain v1 resource adds to its registry entity: a path, a role resource and optional checks. */
export interface ResourceSpec {
  /** Registry entity name. */
  entity: string
  /** Plural camelCase path segment: /api/v1/<path>. */
  path: string
  /** Role resource (`accounts.customers`): reads need `.view`, writes `.manage`. */
  roleResource: string
  /** Human name used in messages ("billing account"). */
  label: string
  /** Extra JSON-schema keywords per field (minimum, pattern, ...). */
  fieldSchemas?: Record<string, Record<string, unknown>>
  /** Rewrites accepted spellings into their stored form before validation (e.g. entity names). */
  normalize?: (body: Record<string, unknown>) => void
  /** Cross-field rules on the merged record; returns the problems found. */
  validate?: (record: Record<string, unknown>, context: ValidationContext) => ErrorDetail[] | Promise<ErrorDetail[]>
}

export interface ValidationContext {
  db: Db
  entity: EntityDef
  isCreate: boolean
}

export interface Resource extends ResourceSpec {
  def: EntityDef
  /** Fields a client may write (not read-only, not id). */
  writableFields: FieldDef[]
}

/** A new record's code: a letter or digit, then letters, digits, `_`, `.` and `-` (no spaces). */
export const CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.\\-]*$'
describePattern(
  CODE_PATTERN,
  'expected a code: letters, digits, _, . and -, starting with a letter or a digit (no spaces)',
)
