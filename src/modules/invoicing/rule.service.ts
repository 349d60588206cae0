import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import type { RuleCreateBody, RuleUpdateBody } from './invoicing.schemas.ts'
import * as repo from './rule.repository.ts'
import { parseRuleCondition, type ValidationRule } from './validation-rule.model.ts'

const notFound = (code: string) => new AppError('RULE_NOT_FOUND', `Invoice validation rule ${code} not found`)

/** A rule whose fields hold together: the condition parses (400 INVALID_RULE_CONDITION), its validity is ordered. */
function checked(rule: ValidationRule): ValidationRule {
  parseRuleCondition(rule.condition)
  if (rule.validFrom !== null && rule.validTo !== null && rule.validTo < rule.validFrom) {
    throw validationError([{ field: 'validTo', message: `must be on or after validFrom ${rule.validFrom}` }])
  }
  return rule
}

/**
 * Invoice validation rules (§2.4): written in the pricing formula language, checked on write. PUT is partial: the
 * fields sent change, `null` clears an optional one (description, validFrom, validTo), as on every v1 resource.
 */
export function createRuleService(deps: { db: Db }) {
  const { db } = deps
  return {
    list: async () => {
      const data = await repo.listRules(db)
      return { total: data.length, data }
    },

    async get(code: string): Promise<ValidationRule> {
      const found = await repo.findRule(db, code)
      if (!found) throw notFound(code)
      return found
    },

    async create(body: RuleCreateBody, actor: { username: string }): Promise<ValidationRule> {
      const rule = checked({
        code: body.code,
        description: body.description ?? null,
        priority: body.priority ?? 0,
        invoiceType: body.invoiceType ?? 'INVOICE',
        condition: body.condition,
        failStatus: body.failStatus,
        active: body.active ?? true,
        validFrom: body.validFrom ?? null,
        validTo: body.validTo ?? null,
      })
      if (!(await repo.insertRule(db, rule, actor.username)))
        throw new AppError('ENTITY_ALREADY_EXISTS', `An invoice validation rule ${body.code} already exists`)
      return rule
    },

    async update(code: string, body: RuleUpdateBody, actor: { username: string }): Promise<ValidationRule> {
      return withTransaction(db, async (tx) => {
        const current = await repo.findRule(tx, code, true)
        if (!current) throw notFound(code)
        const rule = checked({
          ...current,
          ...(body.description === undefined ? {} : { description: body.description }),
          ...(body.priority === undefined ? {} : { priority: body.priority }),
          ...(body.invoiceType === undefined ? {} : { invoiceType: body.invoiceType }),
          ...(body.condition === undefined ? {} : { condition: body.condition }),
          ...(body.failStatus === undefined ? {} : { failStatus: body.failStatus }),
          ...(body.active === undefined ? {} : { active: body.active }),
          ...(body.validFrom === undefined ? {} : { validFrom: body.validFrom }),
          ...(body.validTo === undefined ? {} : { validTo: body.validTo }),
        })
        await repo.updateRule(tx, rule, actor.username)
        return rule
      })
    },

    async delete(code: string): Promise<void> {
      if (!(await repo.deleteRule(db, code))) throw notFound(code)
    },
  }
}

export type RuleService = ReturnType<typeof createRuleService>
