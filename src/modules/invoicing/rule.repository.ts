import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import type { ValidationRule } from './validation-rule.model.ts'

const ruleColumns = sql`code, description, priority, invoice_type as "invoiceType", condition,
  fail_status as "failStatus", active, to_char(valid_from, 'YYYY-MM-DD') as "validFrom",
  to_char(valid_to, 'YYYY-MM-DD') as "validTo"`

export async function listRules(db: Db): Promise<ValidationRule[]> {
  return rows<ValidationRule>(db, sql`select ${ruleColumns} from invoice_validation_rule order by priority, code`)
}

export async function findRule(db: Db, code: string, lock = false): Promise<ValidationRule | undefined> {
  return one<ValidationRule>(
    db,
    sql`select ${ruleColumns} from invoice_validation_rule where code = ${code}${lock ? sql` for update` : sql``}`,
  )
}

/** Inserts a rule; false when its code is taken (the unique code decides, race-safe). */
export async function insertRule(db: Db, rule: ValidationRule, actor: string): Promise<boolean> {
  const inserted = await rows<{ id: unknown }>(
    db,
    sql`insert into invoice_validation_rule (code, description, priority, invoice_type, condition, fail_status, active,
        valid_from, valid_to, creator)
      values (${rule.code}, ${rule.description}, ${rule.priority}, ${rule.invoiceType}, ${rule.condition},
        ${rule.failStatus}, ${rule.active}, ${rule.validFrom}::date, ${rule.validTo}::date, ${actor})
      on conflict (code) do nothing returning id`,
  )
  return inserted.length > 0
}

export async function updateRule(db: Db, rule: ValidationRule, actor: string): Promise<void> {
  await db.execute(sql`update invoice_validation_rule set description = ${rule.description}, priority = ${rule.priority},
      invoice_type = ${rule.invoiceType}, condition = ${rule.condition}, fail_status = ${rule.failStatus},
      active = ${rule.active}, valid_from = ${rule.validFrom}::date, valid_to = ${rule.validTo}::date,
      updated = now(), updater = ${actor}
    where code = ${rule.code}`)
}

/** Deletes a rule; invoices naming it keep its code (§2.4). */
export async function deleteRule(db: Db, code: string): Promise<boolean> {
  return (await rows(db, sql`delete from invoice_validation_rule where code = ${code} returning id`)).length > 0
}
