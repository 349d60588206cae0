/**
 * What the catalog screens share: the lists they choose from (read once through TanStack Query, under keys starting
 * with 'catalog' that every catalog write invalidates), field errors read from a 400's details, charge types and
 * version states in words, and the tenant's today.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { Alert, Badge, Paper, Stack, TextInput } from '@mantine/core'
import { ApiError } from '../api.ts'
import { api, ok } from '../client.ts'
import { day } from '../format.ts'

const ALL = { params: { query: { limit: 1000, sortBy: 'code' } } } as const

/** The lists the catalog forms pick from, by name. */
const LISTS = {
  charges: () => ok(api.GET('/api/v1/charges', ALL)),
  products: () => ok(api.GET('/api/v1/products', ALL)),
  offers: () => ok(api.GET('/api/v1/offerTemplates', ALL)),
  attributes: () => ok(api.GET('/api/v1/attributes', ALL)),
  discountPlans: () => ok(api.GET('/api/v1/discountPlans', ALL)),
  accountingArticles: () => ok(api.GET('/api/v1/accountingArticles', ALL)),
  currencies: () => ok(api.GET('/api/v1/tradingCurrencies', ALL)),
  calendars: () => ok(api.GET('/api/v1/calendars', ALL)),
  invoiceSubCategories: () => ok(api.GET('/api/v1/invoiceSubCategories', ALL)),
  taxClasses: () => ok(api.GET('/api/v1/taxClasses', ALL)),
  unitsOfMeasure: () => ok(api.GET('/api/v1/unitsOfMeasure', ALL)),
  /** The plans an order may apply now (the server's rule): those an offer is given. */
  usableDiscountPlans: () =>
    ok(api.GET('/api/v1/discountPlans', { params: { query: { ...ALL.params.query, usable: true } } })),
  sellers: () => ok(api.GET('/api/v1/sellers', ALL)),
}
type Lists = typeof LISTS
export type Listed<K extends keyof Lists> = Awaited<ReturnType<Lists[K]>>['data'][number]

/** One catalog list (all its records, by code). */
export function useCatalogList<K extends keyof Lists>(name: K) {
  type Page = Awaited<ReturnType<Lists[K]>>
  return useQuery<Page>({ queryKey: ['catalog', name], queryFn: LISTS[name] as () => Promise<Page> })
}

/** After a catalog write: every catalog read is fetched again (lists, records, pricing). */
export function useCatalogRefresh(): () => Promise<void> {
  const client = useQueryClient()
  return () => client.invalidateQueries({ queryKey: ['catalog'] })
}

/** Select options from a list: the code, and its description or name after it. */
export function optionsOf(
  records: readonly { code: string; description?: string | null; name?: string | null }[] | undefined,
) {
  return (records ?? []).map((r) => ({
    value: r.code,
    label: r.name || r.description ? `${r.code} · ${r.name || r.description}` : r.code,
  }))
}

/**
 * The problems of a refused write by field, as the API names them (`price`, `rows[1].price`), for the fields of a
 * form; what names no field of the form stays in the error shown above it.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !Array.isArray(error.body.details)) return {}
  const found: Record<string, string> = {}
  for (const detail of error.body.details) {
    if (detail && typeof detail === 'object' && 'field' in detail && 'message' in detail) {
      const { field, message } = detail
      if (typeof field === 'string' && typeof message === 'string') {
        // A sentence: the API's message with a capital letter and a full stop.
        const sentence = message.charAt(0).toUpperCase() + message.slice(1)
        found[field.replace(/^\//, '').replace(/\//g, '.')] = /[.!?]$/.test(sentence) ? sentence : `${sentence}.`
      }
    }
  }
  return found
}

/** The server's message as a sentence (a 403 says `This operation needs the role …`, without a full stop). */
const asSentence = (message: string) => (/[.!?)]$/.test(message.trim()) ? message : `${message.trim()}.`)

/**
 * A refused write as a sentence above its form; when every problem is shown under the field it names (`shows` says
 * which fields the form has), only a pointer to them, so no sentence is read twice.
 */
export function FormError({ error, shows }: { error: unknown; shows?: (field: string) => boolean }) {
  if (error === undefined || error === null) return null
  const fields = Object.keys(fieldErrors(error))
  const marked = shows !== undefined && fields.length > 0 && fields.every(shows)
  const message = marked
    ? `Correct the ${fields.length === 1 ? 'field' : 'fields'} marked below.`
    : error instanceof Error
      ? asSentence(error.message)
      : 'Something went wrong.'
  return (
    <Alert color="red" role="alert" variant="light" p="xs">
      {message}
    </Alert>
  )
}

/** Whether a record shows under a search: every word typed is in one of its texts (any case). */
export function matches(search: string, ...texts: (string | null | undefined)[]): boolean {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean)
  const haystack = texts.filter(Boolean).join(' ').toLowerCase()
  return words.every((w) => haystack.includes(w))
}

/** The search box above a catalog list (the list is filtered as it is typed, in the browser). */
export function ListSearch({
  value,
  onChange,
  label,
}: {
  value: string
  onChange: (value: string) => void
  label: string
}) {
  return (
    <TextInput
      type="search"
      label={label}
      placeholder="Code or description"
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      w={320}
      maw="100%"
    />
  )
}

export const CHARGE_TYPE_WORDS: Record<string, string> = {
  ONESHOT: 'One-shot',
  RECURRING: 'Recurring',
  USAGE: 'Usage',
}
export const ONE_SHOT_WORDS: Record<string, string> = {
  SUBSCRIPTION: 'when the subscription starts',
  TERMINATION: 'when the subscription ends',
  OTHER: 'when applied by hand',
}

export { useTenantToday } from '../session.ts'

/** A dated version (pricing or product) on a day: its state in words, from its status and dates. */
export function versionState(
  v: { status: string; validFrom: string | null; validTo: string | null },
  today: string,
): { words: string; color: string; inForce: boolean } {
  if (v.status === 'DRAFT')
    return { words: v.validFrom ? `Draft, to start ${day(v.validFrom)}` : 'Draft', color: 'gray', inForce: false }
  if (v.validTo && v.validTo <= today) return { words: `Ended ${day(v.validTo)}`, color: 'dark', inForce: false }
  if (v.validFrom && v.validFrom > today)
    return {
      words: `Starts ${day(v.validFrom)}${v.validTo ? `, until ${day(v.validTo)}` : ''}`,
      color: 'cyan',
      inForce: false,
    }
  return {
    words: v.validTo ? `In force until ${day(v.validTo)}` : 'In force, open-ended',
    color: 'green',
    inForce: true,
  }
}

export function StateBadge({ state }: { state: { words: string; color: string } }) {
  return (
    <Badge color={state.color} variant="light" tt="none" size="md" radius="sm">
      {state.words}
    </Badge>
  )
}

/**
 * A form that sends one request: a bordered box named `label`; on submit, `submit`; above the fields, the request's
 * `error` (pointing at the fields when every field it names is one `shows` marks on this form).
 */
export function MutationForm({
  label,
  submit,
  error,
  shows,
  children,
}: {
  label: string
  submit: () => void
  error: unknown
  shows: (field: string) => boolean
  children: ReactNode
}) {
  return (
    <Paper
      withBorder
      p="md"
      component="form"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault()
        submit()
      }}
    >
      <Stack gap="sm">
        <FormError error={error} shows={shows} />
        {children}
      </Stack>
    </Paper>
  )
}
