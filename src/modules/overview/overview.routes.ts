import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { principalOf } from '../../kernel/http/principal.ts'
import { Nullable } from '../../kernel/http/schemas.ts'
import type { OverviewService } from './overview.service.ts'

const CurrencyTotal = Type.Object(
  {
    currency: Type.String(),
    count: Type.Integer(),
    amountWithTax: Type.String({ description: 'a decimal, exact' }),
  },
  { additionalProperties: false },
)

export const Overview = Type.Object(
  {
    today: Type.String({ format: 'date', description: "today in the tenant's time zone" }),
    timeZone: Type.String(),
    walletOperations: Nullable(
      Type.Object(
        {
          today: Type.Array(CurrencyTotal),
          thisMonth: Type.Array(CurrencyTotal),
          perDay: Type.Array(
            Type.Object(
              {
                day: Type.String({ format: 'date' }),
                count: Type.Integer({ description: 'operations that day, every currency' }),
                totals: Type.Array(CurrencyTotal, { description: 'by currency, never added across currencies' }),
              },
              { additionalProperties: false },
            ),
            { description: "every day of the last 30 of the tenant's calendar, oldest first, today last" },
          ),
        },
        { additionalProperties: false, description: 'rated wallet operations, cancelled ones left out' },
      ),
    ),
    openReservations: Nullable(Type.Array(CurrencyTotal)),
    nextBillRuns: Nullable(
      Type.Array(
        Type.Object(
          { code: Type.String(), name: Type.String(), nextFireDate: Type.String({ format: 'date-time' }) },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { $id: 'Overview', title: 'Overview', additionalProperties: false },
)

export function registerOverviewRoutes(server: FastifyInstance, service: OverviewService): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/api/v1/overview',
    {
      config: { policy: { anyRole: ['billing.wallets.view', 'billing.billingRuns.view'] } },
      schema: {
        operationId: 'getOverview',
        tags: ['Overview'],
        summary:
          "The landing figures: wallet operations rated today and this month (the tenant's calendar) and per day (with amounts by currency) over 30 days, open reservations and what they hold, the next bill runs; each part null without its view role (billing.wallets.view, billing.billingRuns.view), and only the caller's sellers",
        response: { 200: Overview },
      },
    },
    async (request) => service.overview(principalOf(request)),
  )
}
