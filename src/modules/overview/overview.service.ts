import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { AppError } from '../../kernel/errors.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { tenantToday } from '../../kernel/settings.ts'
import { plusDays } from '../../kernel/time-zone.ts'
import type { QueryEngine } from '../query/index.ts'
import { MAX_PAGE_LIMIT } from '../../kernel/http/pagination.ts'

/** How many days the trend of rated operations covers, today included. */
export const TREND_DAYS = 30

export interface CurrencyTotal {
  currency: string
  count: number
  amountWithTax: string
}

export interface DayTotal {
  day: string
  count: number
  totals: CurrencyTotal[]
}

/** A decimal the query layer parsed (a number when a double holds it exactly, else its raw JSON) as its text. */
const decimalText = (value: unknown): string =>
  value === null || value === undefined ? '0' : typeof value === 'number' ? String(value) : JSON.stringify(value)

/**
 * The figures a billing team looks at first, read through the query layer (so with the caller's read roles and
 * sellers, like any Query API request): wallet operations rated today and this month — days of the tenant's calendar,
 * not the browser's — and per day and currency over 30 days, open reservations and what they hold, the next bill runs. A part the
 * caller may not read is null.
 */
export function createOverviewService(deps: { db: Db; clock: Clock; engine: QueryEngine }) {
  const { engine } = deps
  /** Rows of a Query API request, or null when the caller may not read the entity. */
  const read = async (principal: Principal, entity: string, request: Parameters<QueryEngine['runList']>[2]) => {
    try {
      return (await engine.runList(principal, entity, request)).data as Record<string, unknown>[]
    } catch (error) {
      if (error instanceof AppError && error.code === 'FORBIDDEN') return null
      throw error
    }
  }
  const total = (r: Record<string, unknown>, currencyKey: string): CurrencyTotal => ({
    currency: String(r[currencyKey]),
    count: Number(r['COUNT(id)']),
    amountWithTax: decimalText(r['SUM(amountWithTax)']),
  })
  const totals = (rows: Record<string, unknown>[] | null, currencyKey: string): CurrencyTotal[] | null =>
    rows?.map((r) => total(r, currencyKey)) ?? null
  const rated = (principal: Principal, from: string, to: string) =>
    read(principal, 'WalletOperation', {
      fields: ['currency.code', 'COUNT(id)', 'SUM(amountWithTax)'],
      groupBy: ['currency.code'],
      filters: { 'fromRange operationDate': from, 'toRange operationDate': to, 'ne status': 'CANCELED' },
      sortBy: ['currency.code'],
      limit: 100,
    })

  /**
   * Rated operations per day and currency, grouped by the database. An operation's date is already its day of the
   * tenant's calendar (rating writes it so, `usageDay`): it is read as it is, never as an instant again, which would
   * move every day back by one west of UTC. Every group is read, page after page: 30 days times the currencies in use.
   */
  const perDay = async (principal: Principal, from: string, to: string) => {
    const groups: Record<string, unknown>[] = []
    for (let offset = 0; ; offset += MAX_PAGE_LIMIT) {
      const page = await read(principal, 'WalletOperation', {
        fields: ['operationDate', 'currency.code', 'COUNT(id)', 'SUM(amountWithTax)'],
        groupBy: ['operationDate', 'currency.code'],
        filters: { 'fromRange operationDate': from, 'toRange operationDate': to, 'ne status': 'CANCELED' },
        sortBy: ['operationDate', 'currency.code'],
        offset,
        limit: MAX_PAGE_LIMIT,
      })
      if (!page) return null
      groups.push(...page)
      if (page.length < MAX_PAGE_LIMIT) return groups
    }
  }

  return {
    async overview(principal: Principal) {
      const { today, timeZone } = await tenantToday(deps.db, deps.clock)
      const tomorrow = plusDays(today, 1)
      const monthStart = `${today.slice(0, 8)}01`
      const trendStart = plusDays(today, 1 - TREND_DAYS)
      const [ratedToday, ratedThisMonth, days, reservations, billRuns] = await Promise.all([
        rated(principal, today, tomorrow),
        rated(principal, monthStart, tomorrow),
        perDay(principal, trendStart, tomorrow),
        read(principal, 'Reservation', {
          fields: ['userAccount.billingAccount.tradingCurrency.code', 'COUNT(id)', 'SUM(amountWithTax)'],
          groupBy: ['userAccount.billingAccount.tradingCurrency.code'],
          filters: { status: 'OPEN' },
          limit: 100,
        }),
        read(principal, 'BillingRunSchedule', {
          fields: ['code', 'name', 'nextFireDate'],
          filters: { status: 'ACTIVE', nextFireDate: 'IS_NOT_NULL' },
          sortBy: ['nextFireDate', 'code'],
          limit: 5,
        }),
      ])
      // Every day of the trend, those without an operation at zero: a chart reads the gaps as they are.
      const byDay = new Map<string, CurrencyTotal[]>()
      for (const r of days ?? []) {
        const day = String(r.operationDate)
        byDay.set(day, [...(byDay.get(day) ?? []), total(r, 'currency.code')])
      }
      const trend = Array.from({ length: TREND_DAYS }, (_, i): DayTotal => {
        const day = plusDays(trendStart, i)
        const totals = byDay.get(day) ?? []
        return { day, count: totals.reduce((sum, t) => sum + t.count, 0), totals }
      })
      const todayTotals = totals(ratedToday, 'currency.code')
      const monthTotals = totals(ratedThisMonth, 'currency.code')
      return {
        today,
        timeZone,
        walletOperations:
          todayTotals && monthTotals && days ? { today: todayTotals, thisMonth: monthTotals, perDay: trend } : null,
        openReservations: totals(reservations, 'userAccount.billingAccount.tradingCurrency.code'),
        nextBillRuns:
          billRuns?.map((r) => ({
            code: String(r.code),
            name: String(r.name),
            nextFireDate: String(r.nextFireDate),
          })) ?? null,
      }
    },
  }
}
export type OverviewService = ReturnType<typeof createOverviewService>
