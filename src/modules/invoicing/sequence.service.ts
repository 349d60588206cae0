import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { dayIn } from '../../kernel/time-zone.ts'
import type { SequenceBody } from './invoicing.schemas.ts'
import { patternProblem, periodKey } from './sequence.model.ts'
import * as repo from './sequence.repository.ts'

/** The path segment naming the tenant's default sequences: no seller code can be it (codes start with a letter or digit). */
export const DEFAULT_SELLER = '_default'

const view = (row: repo.SequenceRow & { own: boolean }, seller: string | null) => ({
  seller,
  invoiceType: row.invoiceType,
  pattern: row.pattern,
  resetEach: row.resetEach,
  currentValue: row.currentValue,
  inherited: row.own ? null : (row.seller ?? DEFAULT_SELLER),
})

/**
 * Invoice sequences (§2.5): a seller's own, inherited up its hierarchy, or the tenant default. `currentValue` is the
 * last number taken in the current period; it may be raised (numbering continues from another system) but never
 * lowered, since numbers are never reused.
 */
export function createSequenceService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps

  async function sellerOf(tx: Db, code: string): Promise<{ id: number; code: string } | null> {
    if (code === DEFAULT_SELLER) return null
    const seller = await repo.sellerIdOf(tx, code)
    if (!seller) throw new AppError('ENTITY_NOT_FOUND', `Seller ${code} not found`)
    return seller
  }

  return {
    list: async () => ({
      data: (await repo.listSequences(db)).map((row) => view({ ...row, own: true }, row.seller)),
    }),

    async get(sellerCode: string, invoiceType: string) {
      const seller = await sellerOf(db, sellerCode)
      return view(await repo.effectiveSequence(db, seller?.id ?? null, invoiceType), seller?.code ?? null)
    },

    async put(sellerCode: string, invoiceType: string, body: SequenceBody, actor: { username: string }) {
      return withTransaction(db, async (tx) => {
        const seller = await sellerOf(tx, sellerCode)
        const current = await repo.effectiveSequence(tx, seller?.id ?? null, invoiceType)
        const pattern = body.pattern ?? current.pattern
        const resetEach = body.resetEach ?? current.resetEach
        const problem = patternProblem(pattern, resetEach)
        if (problem)
          throw validationError([{ field: body.pattern === undefined ? 'resetEach' : 'pattern', message: problem }])
        const id = await repo.upsertSequence(
          tx,
          seller?.id ?? null,
          invoiceType,
          { pattern, resetEach },
          actor.username,
        )
        if (body.currentValue !== undefined) {
          const { timeZone } = await readTenantSettings(tx)
          const period = periodKey(resetEach, dayIn(clock.now(), timeZone))
          const taken = await repo.lockCounter(tx, id, period)
          if (body.currentValue < taken)
            throw validationError([
              {
                field: 'currentValue',
                message: `must be at least ${taken}, the last number taken: numbers are never reused`,
              },
            ])
          await repo.setCounter(tx, id, period, body.currentValue)
        }
        return view(await repo.effectiveSequence(tx, seller?.id ?? null, invoiceType), seller?.code ?? null)
      })
    },
  }
}

export type SequenceService = ReturnType<typeof createSequenceService>
