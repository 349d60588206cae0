import type { ReactNode } from 'react'
import { Badge, SimpleGrid, Stack, Text } from '@mantine/core'
import { money } from '../../format.ts'

/**
 * An amount of the API (a JSON number written from its exact decimal text, typed `number` by the document) as the
 * decimal text `money()` formats: JavaScript writes back the shortest text that reads as the same number, which for
 * an amount of up to 15 significant digits is the text the server wrote.
 */
export function amountText(value: number | string | null | undefined): string | null {
  return value === null || value === undefined ? null : String(value)
}

/** `money()` over an API amount. */
export const amount = (value: number | string | null | undefined, currency?: string | null): string =>
  money(amountText(value), currency)

/** A tax rate as a percentage (`20` → `20 %`). */
export const percent = (value: number | string | null | undefined): string =>
  value === null || value === undefined ? '–' : `${String(value)} %`

const COLORS: Record<string, string> = {
  NEW: 'gray',
  INVOICE_LINES_CREATED: 'blue',
  DRAFT_INVOICES: 'blue',
  DRAFT: 'blue',
  SUSPECT: 'yellow',
  REJECTED: 'red',
  VALIDATED: 'green',
  CANCELLED: 'gray',
  PENDING: 'gray',
  RETRYING: 'yellow',
  SUCCEEDED: 'green',
  FAILED: 'red',
}

/** A status in words a person reads (`DRAFT_INVOICES` → `Draft invoices`), coloured by how it stands. */
export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant="light" data-testid="status">
      {words(status)}
    </Badge>
  )
}

export const words = (status: string): string => {
  const text = status.toLowerCase().replace(/_/g, ' ')
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** Labelled facts in a grid: two columns on a desktop, one on a phone. */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 3 }} spacing="sm" verticalSpacing="xs" component="dl" className="facts">
      {items.map(([label, value]) => (
        <Stack key={label} gap={0}>
          <Text component="dt" size="xs" c="dimmed">
            {label}
          </Text>
          <Text component="dd" size="sm" m={0}>
            {value}
          </Text>
        </Stack>
      ))}
    </SimpleGrid>
  )
}

/** A list with nothing in it, said in words. */
export function Empty({ children }: { children: ReactNode }) {
  return (
    <Text c="dimmed" py="md" data-testid="empty">
      {children}
    </Text>
  )
}
