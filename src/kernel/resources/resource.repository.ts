import { sql, type SQL } from 'drizzle-orm'
import { rows, type Db } from '../db/database.ts'
import type { EntityDef, FieldDef } from '../model/index.ts'
import { registry } from '../model/index.ts'
import { parseDatabaseJson } from '../decimal-json.ts'
import { wireValue } from '../model/json.ts'
import { sellerRestriction, type SellerCodes } from '../model/row-security.ts'

export type WireRecord = Record<string, unknown>

const ident = (name: string) => sql.identifier(name)

/** A JSON key from the registry (never from a request), inlined as a literal. */
export function jsonKey(name: string): SQL {
  if (!/^[A-Za-z_][A-Za-z0-9_.()]*$/.test(name)) throw new Error(`unsafe JSON key ${name}`)
  return sql.raw(`'${name}'`)
}
const AUDIT = new Set(['created', 'updated', 'creator', 'updater'])

/** The caller's seller restriction on the rows of `entity` as `alias`, or `true`. */
function visible(entity: EntityDef, alias: string, sellerCodes: SellerCodes): SQL {
  return sellerRestriction(registry, entity, alias, sellerCodes) ?? sql`true`
}

/**
 * One JSON object per row, built by PostgreSQL: fields, relations as target codes, the audit block. A related
 * business record the caller may not see is written null, as the Query API writes it.
 */
function recordJson(entity: EntityDef, sellerCodes: SellerCodes): { json: SQL; joins: SQL } {
  const pairs: SQL[] = []
  const joins: SQL[] = []
  for (const field of entity.fields.values()) {
    if (AUDIT.has(field.name)) continue
    pairs.push(sql`${jsonKey(field.name)}, ${wireValue('t', field)}`)
  }
  let i = 0
  for (const rel of entity.relations.values()) {
    if (rel.kind !== 'manyToOne') continue
    const target = registry.get(rel.target)
    const alias = `r${i++}`
    pairs.push(sql`${jsonKey(rel.name)}, ${ident(alias)}.${ident(target.codeField ?? 'id')}`)
    joins.push(
      sql` left join ${ident(target.tableName)} ${ident(alias)} on ${ident(alias)}.id = t.${ident(rel.column!)} and ${visible(target, alias, sellerCodes)}`,
    )
  }
  const audit = [...AUDIT].map((name) => entity.fields.get(name)).filter((f): f is FieldDef => f !== undefined)
  if (audit.length > 0) {
    const auditPairs = audit.map((f) => sql`${jsonKey(f.name)}, ${wireValue('t', f)}`)
    pairs.push(sql`'auditable', json_build_object(${sql.join(auditPairs, sql`, `)})`)
  }
  // json_build_object takes at most 100 arguments: build in chunks and merge.
  const chunks: SQL[] = []
  for (let start = 0; start < pairs.length; start += 40) {
    chunks.push(sql`jsonb_build_object(${sql.join(pairs.slice(start, start + 40), sql`, `)})`)
  }
  return { json: sql.join(chunks, sql` || `), joins: sql.join(joins, sql``) }
}

/** Records matching `where` that the caller may see (`sellerCodes`: its seller restriction, null for none). */
async function selectRecords(
  db: Db,
  entity: EntityDef,
  where: SQL,
  sellerCodes: SellerCodes,
  tail: SQL = sql``,
): Promise<WireRecord[]> {
  const { json, joins } = recordJson(entity, sellerCodes)
  const found = await rows<{ j: string }>(
    db,
    sql`select (${json})::text as j from ${ident(entity.tableName)} t${joins} where ${where} and ${visible(entity, 't', sellerCodes)}${tail}`,
  )
  // Decimals a double cannot hold stay exact JSON numbers (the record schema writes them verbatim).
  return found.map((r) => parseDatabaseJson(r.j) as WireRecord)
}

export async function findByCode(
  db: Db,
  entity: EntityDef,
  code: string,
  sellerCodes: SellerCodes = null,
): Promise<WireRecord | undefined> {
  return (await selectRecords(db, entity, sql`t.code = ${code}`, sellerCodes))[0]
}

export async function findById(
  db: Db,
  entity: EntityDef,
  id: number,
  sellerCodes: SellerCodes = null,
): Promise<WireRecord | undefined> {
  return (await selectRecords(db, entity, sql`t.id = ${id}`, sellerCodes))[0]
}

/** A list's restriction to the records whose `field` holds one of `values` (`negate`: none of them). */
export interface ValueFilter {
  readonly field: FieldDef
  readonly values: readonly string[]
  readonly negate?: boolean
}

function valueCondition({ field, values, negate }: ValueFilter): SQL {
  const matches =
    values.length === 0
      ? sql`false`
      : sql`t.${ident(field.column)} in (${sql.join(
          values.map((v) => sql`${v}`),
          sql`, `,
        )})`
  return negate ? sql`not (${matches})` : sql`(${matches})`
}

export async function list(
  db: Db,
  entity: EntityDef,
  page: { offset: number; limit: number; sortBy: FieldDef; descending: boolean },
  sellerCodes: SellerCodes = null,
  filter?: ValueFilter,
): Promise<{ total: number; data: WireRecord[] }> {
  const direction = page.descending ? sql`desc` : sql`asc`
  const where = filter ? valueCondition(filter) : sql`true`
  const data = await selectRecords(
    db,
    entity,
    where,
    sellerCodes,
    sql` order by t.${ident(page.sortBy.column)} ${direction}, t.id ${direction} limit ${page.limit} offset ${page.offset}`,
  )
  const count = await rows<{ n: string }>(
    db,
    sql`select count(*)::text as n from ${ident(entity.tableName)} t where ${where} and ${visible(entity, 't', sellerCodes)}`,
  )
  return { total: Number(count[0]?.n ?? 0), data }
}

/**
 * Whether the record `id` belongs to one of `sellerCodes` (null: any) by its registry seller path, i.e. whether a caller
 * restricted to them may see it; inside a transaction, in its new state. Always true for entities that are not business.
 */
export async function withinSellers(db: Db, entity: EntityDef, id: number, sellerCodes: SellerCodes): Promise<boolean> {
  if (sellerRestriction(registry, entity, 't', sellerCodes) === undefined) return true
  const found = await rows<{ id: unknown }>(
    db,
    sql`select t.id from ${ident(entity.tableName)} t where t.id = ${id} and ${visible(entity, 't', sellerCodes)}`,
  )
  return found.length > 0
}

export async function idOfCode(db: Db, entity: EntityDef, code: string): Promise<number | undefined> {
  const found = await rows<{ id: string | number }>(
    db,
    sql`select id from ${ident(entity.tableName)} where code = ${code}`,
  )
  return found[0] === undefined ? undefined : Number(found[0].id)
}

/**
 * Locks the row so a concurrent update or delete of the same record waits for this transaction. A record the caller
 * may not see is not found.
 */
export async function lockIdOfCode(
  db: Db,
  entity: EntityDef,
  code: string,
  sellerCodes: SellerCodes = null,
): Promise<number | undefined> {
  const found = await rows<{ id: string | number }>(
    db,
    sql`select t.id from ${ident(entity.tableName)} t where t.code = ${code} and ${visible(entity, 't', sellerCodes)} for update of t`,
  )
  return found[0] === undefined ? undefined : Number(found[0].id)
}

/** Inserts column → SQL value pairs; returns the new id. */
export async function insert(db: Db, entity: EntityDef, values: Map<string, SQL>): Promise<number> {
  const columns = [...values.keys()].map((c) => ident(c))
  const inserted = await rows<{ id: string | number }>(
    db,
    sql`insert into ${ident(entity.tableName)} (${sql.join(columns, sql`, `)}) values (${sql.join([...values.values()], sql`, `)}) returning id`,
  )
  return Number(inserted[0]!.id)
}

export async function update(db: Db, entity: EntityDef, id: number, values: Map<string, SQL>): Promise<void> {
  if (values.size === 0) return
  const sets = [...values.entries()].map(([c, v]) => sql`${ident(c)} = ${v}`)
  await db.execute(sql`update ${ident(entity.tableName)} set ${sql.join(sets, sql`, `)} where id = ${id}`)
}

export async function remove(db: Db, entity: EntityDef, id: number): Promise<boolean> {
  const deleted = await rows<{ id: unknown }>(
    db,
    sql`delete from ${ident(entity.tableName)} where id = ${id} returning id`,
  )
  return deleted.length > 0
}
