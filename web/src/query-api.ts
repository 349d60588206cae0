/**
 * Reads through the Query API (`GET /api/v1/query/{entity}`) with the generated client: the screens of sales
 * (accounts, orders) list records with a filter object in the Query API's grammar (`{ "billingAccount": "BA_001" }`,
 * `{ "wildcardOrIgnoreCase code description name": "lov" }`) and dotted fields (`billingAccount.code`).
 */
import { api, ok } from './client.ts'

export type QueryRow = Record<string, unknown>

export interface QueryPage {
  readonly total: number
  readonly rows: QueryRow[]
}

export interface QueryParams {
  readonly filters?: Record<string, unknown>
  readonly fields?: readonly string[]
  readonly groupBy?: readonly string[]
  readonly limit?: number
  readonly offset?: number
  readonly sortBy?: string
  readonly sortOrder?: 'ASC' | 'DESC'
}

export async function queryRecords(entity: string, params: QueryParams = {}): Promise<QueryPage> {
  const answer = await ok(
    api.GET('/api/v1/query/{entity}', {
      params: {
        path: { entity },
        query: {
          ...(params.filters && Object.keys(params.filters).length > 0
            ? { filters: JSON.stringify(params.filters) }
            : {}),
          ...(params.fields ? { fields: params.fields.join(',') } : {}),
          ...(params.groupBy ? { groupBy: params.groupBy.join(',') } : {}),
          limit: params.limit ?? 100,
          ...(params.offset ? { offset: params.offset } : {}),
          ...(params.sortBy ? { sortBy: params.sortBy, sortOrder: params.sortOrder ?? 'ASC' } : {}),
        },
      },
    }),
  )
  if (Array.isArray(answer)) return { total: answer.length, rows: answer }
  return { total: answer.total ?? answer.data.length, rows: answer.data }
}

/** A scalar as text: a string as it is, a number or a boolean as JSON writes it; anything else is ''. */
export function scalar(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  return ''
}

/** A field of a row as text: a dotted field is read as the API nests it (`billingAccount.code`), or flat. */
export function text(row: QueryRow | undefined, field: string): string {
  if (!row) return ''
  if (field in row) return scalar(row[field])
  let value: unknown = row
  for (const part of field.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[part]
  return scalar(value)
}
