import type { Caller } from '../../kernel/caller.ts'
import type { Decimal } from 'decimal.js'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Db } from '../../kernel/db/database.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { formatDecimal, money } from '../../kernel/money.ts'
import { registry } from '../../kernel/model/index.ts'
import { decimalJson } from '../../kernel/decimal-json.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { withinSellers } from '../../kernel/resources/resource.repository.ts'
import * as repo from './prepaid.repository.ts'

export interface WalletView {
  readonly code: string
  readonly walletType: string
  readonly currency: string
  readonly balance: Decimal
  readonly reserved: Decimal
  /** balance − reserved: what a new reservation may hold. */
  readonly available: Decimal
  /** `wallet.balance_low` is reported when the available amount falls below it; null: never. */
  readonly lowBalanceLevel: Decimal | null
}

const view = (w: repo.WalletRow): WalletView => ({
  code: w.code,
  walletType: w.walletType,
  currency: w.currency,
  balance: money(w.balance),
  reserved: money(w.reserved),
  available: money(w.balance).minus(w.reserved),
  lowBalanceLevel: w.lowBalanceLevel === null ? null : money(w.lowBalanceLevel),
})

/** A wallet as its v1 resource shows it, in an event: decimals as JSON numbers, and its user account. */
const eventObject = (userAccount: string, w: WalletView) => ({
  userAccount,
  code: w.code,
  walletType: w.walletType,
  currency: w.currency,
  balance: decimalJson(w.balance),
  reserved: decimalJson(w.reserved),
  available: decimalJson(w.available),
  lowBalanceLevel: w.lowBalanceLevel === null ? null : decimalJson(w.lowBalanceLevel),
})

/**
 * A low-balance level as stored: zero or more, in whole minor units of the wallet's currency (an available amount is
 * always whole minor units, so a finer level would only hide where it is crossed).
 */
function levelOf(level: Decimal | null | undefined, currency: string, minorUnits: number): string | null | undefined {
  if (level === undefined || level === null) return level
  if (level.isNegative()) throw validationError([{ field: 'lowBalanceLevel', message: 'must be 0 or more' }])
  if (level.decimalPlaces() > minorUnits) {
    throw validationError([
      {
        field: 'lowBalanceLevel',
        message: `${currency} amounts have at most ${minorUnits} decimals, not ${formatDecimal(level)}`,
      },
    ])
  }
  return level.toFixed()
}

/** A user account's wallets: the principal postpaid one and PREPAID ones, credited through the ledger. */
export function createWalletService(deps: { db: Db; outbox: Outbox }) {
  const { db, outbox } = deps
  const report = repo.prepaidReport(outbox)

  /** The user account, when the caller may see it (row-level security): otherwise ENTITY_NOT_FOUND. */
  async function userAccount(tx: Db, code: string, caller: Caller): Promise<number> {
    const found = await repo.userAccountIdByCode(tx, code)
    if (found === undefined || !(await withinSellers(tx, registry.get('UserAccount'), found, caller.sellerCodes))) {
      throw new AppError('ENTITY_NOT_FOUND', `User account ${code} not found`)
    }
    return found
  }

  return {
    async list(userAccountCode: string, caller: Caller): Promise<WalletView[]> {
      const id = await userAccount(db, userAccountCode, caller)
      return (await repo.walletsOf(db, id)).map(view)
    },

    /** Creates a PREPAID wallet (balance 0) in the billing account's currency. */
    async create(
      userAccountCode: string,
      input: { code: string; walletType: string; description?: string | null; lowBalanceLevel?: Decimal | null },
      caller: Caller,
    ): Promise<WalletView> {
      if (input.walletType !== 'PREPAID') {
        throw validationError([{ field: 'walletType', message: 'only PREPAID wallets can be created' }])
      }
      return withTransaction(db, async (tx) => {
        const id = await userAccount(tx, userAccountCode, caller)
        const currency = await repo.currencyOfUserAccount(tx, id)
        const created = await repo.createPrepaidWallet(
          tx,
          {
            userAccountId: id,
            code: input.code,
            description: input.description ?? null,
            lowBalanceLevel: levelOf(input.lowBalanceLevel, currency.code, currency.minorUnits) ?? null,
          },
          caller.username,
        )
        if (!created) {
          throw new AppError(
            'ENTITY_ALREADY_EXISTS',
            `User account ${userAccountCode} already has a wallet ${input.code}`,
          )
        }
        return view((await repo.walletByCode(tx, id, input.code))!)
      })
    },

    /**
     * Changes a PREPAID wallet's description or low-balance level. Setting a level the wallet is already below
     * reports nothing: the event is a crossing, reported by the change of balance that makes it.
     */
    async update(
      userAccountCode: string,
      walletCode: string,
      input: { description?: string | null; lowBalanceLevel?: Decimal | null },
      caller: Caller,
    ): Promise<WalletView> {
      return withTransaction(db, async (tx) => {
        const id = await userAccount(tx, userAccountCode, caller)
        const wallet = await repo.walletByCode(tx, id, walletCode)
        if (!wallet)
          throw new AppError('ENTITY_NOT_FOUND', `Wallet ${walletCode} of user account ${userAccountCode} not found`)
        if (wallet.walletType !== 'PREPAID' && input.lowBalanceLevel !== undefined) {
          throw validationError([
            { field: 'lowBalanceLevel', message: 'only PREPAID wallets have a low-balance level' },
          ])
        }
        const lowBalanceLevel = levelOf(input.lowBalanceLevel, wallet.currency, wallet.minorUnits)
        await repo.lockWallets(tx, [wallet.id])
        await repo.changeWallet(tx, wallet.id, { description: input.description, lowBalanceLevel }, caller.username)
        return view((await repo.walletByCode(tx, id, walletCode))!)
      })
    },

    /** Credits a PREPAID wallet (a CREDIT ledger row) under its row lock; answers the wallet after the credit. */
    async credit(
      userAccountCode: string,
      walletCode: string,
      input: { amount: Decimal; reference?: string | null },
      caller: Caller,
    ): Promise<WalletView> {
      if (input.amount.lte(0)) throw validationError([{ field: 'amount', message: 'must be greater than 0' }])
      return withTransaction(db, async (tx) => {
        const id = await userAccount(tx, userAccountCode, caller)
        const wallet = await repo.walletByCode(tx, id, walletCode)
        if (!wallet)
          throw new AppError('ENTITY_NOT_FOUND', `Wallet ${walletCode} of user account ${userAccountCode} not found`)
        if (wallet.walletType !== 'PREPAID') {
          throw new AppError(
            'INVALID_STATE',
            `Wallet ${walletCode} is ${wallet.walletType}: only PREPAID wallets take credits`,
          )
        }
        // Money in a wallet is whole minor units of its currency, as every hold and debit is rated to: never rounded.
        if (input.amount.decimalPlaces() > wallet.minorUnits) {
          throw validationError([
            {
              field: 'amount',
              message: `${wallet.currency} amounts have at most ${wallet.minorUnits} decimals, not ${formatDecimal(input.amount)}`,
            },
          ])
        }
        const before = (await repo.lockWallets(tx, [wallet.id])).get(wallet.id)
        await repo.applyLedger(
          tx,
          [
            {
              type: 'CREDIT',
              walletId: wallet.id,
              balanceDelta: input.amount.toFixed(),
              reference: input.reference ?? null,
            },
          ],
          caller.username,
          report,
        )
        const after = view((await repo.walletByCode(tx, id, walletCode))!)
        await outbox.emit(tx, {
          type: 'wallet.credited',
          aggregate: { type: 'wallet', id: wallet.id },
          object: eventObject(userAccountCode, after),
          previous: { balance: decimalJson(before?.balance ?? wallet.balance) },
          sellerId: await repo.sellerIdOfUserAccount(tx, id),
        })
        return after
      })
    },
  }
}

export type WalletService = ReturnType<typeof createWalletService>
