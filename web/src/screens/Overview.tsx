import { lazy, Suspense } from 'react'
import { Link } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { Anchor, Loader, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core'
import { ApiError } from '../api.ts'
import { api, ok, type Got } from '../client.ts'
import { ErrorMessage } from '../components.tsx'
import { day, money, moment } from '../format.ts'

const TrendChart = lazy(async () => ({ default: (await import('./TrendChart.tsx')).TrendChart }))

type Overview = Got<'/api/v1/overview'>
type Totals = NonNullable<Overview['openReservations']>

/** Amounts by currency, one a line (never added across currencies); an en dash when there is none. */
function Amounts({ totals }: { totals: Totals }) {
  if (totals.length === 0) return <Text size="sm">–</Text>
  return (
    <>
      {totals.map((t) => (
        <Text key={t.currency} size="sm">
          {money(t.amountWithTax, t.currency)}
        </Text>
      ))}
    </>
  )
}

const countOf = (totals: Totals) => totals.reduce((sum, t) => sum + t.count, 0)

function Figure({ label, count, totals, testId }: { label: string; count: number; totals: Totals; testId: string }) {
  return (
    <Paper withBorder p="md" data-testid={testId}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={28} fw={700} lh={1.2}>
        {count.toLocaleString('en-GB')}
      </Text>
      <Amounts totals={totals} />
    </Paper>
  )
}

/** The landing screen: what a billing team looks at first, all from the server (the tenant's calendar). */
export function Overview() {
  const figures = useQuery({
    queryKey: ['overview'],
    queryFn: () => ok(api.GET('/api/v1/overview')),
    refetchInterval: 60_000,
  })
  // Recent Expert runs: only for a caller who may run Expert (a refusal hides the panel, it is not an error).
  const runs = useQuery({
    queryKey: ['expert-runs', 'recent'],
    queryFn: () => ok(api.GET('/api/v1/workbench/expert/executions', { params: { query: { limit: 5, offset: 0 } } })),
    retry: false,
  })
  const o = figures.data
  const ops = o?.walletOperations
  const recent = runs.data?.data
  return (
    <Stack gap="md" className="overview">
      <div>
        <Title order={1} size="h3">
          Overview
        </Title>
        {o && (
          <Text size="sm" c="dimmed">
            Today is {day(o.today)} ({o.timeZone}).
          </Text>
        )}
      </div>
      <ErrorMessage error={figures.error} />
      {o && (
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }}>
          {ops && (
            <>
              <Figure
                label="Operations rated today"
                count={countOf(ops.today)}
                totals={ops.today}
                testId="rated-today"
              />
              <Figure
                label="Rated this month"
                count={countOf(ops.thisMonth)}
                totals={ops.thisMonth}
                testId="rated-month"
              />
            </>
          )}
          {o.openReservations && (
            <Figure
              label="Open reservations, held"
              count={countOf(o.openReservations)}
              totals={o.openReservations}
              testId="open-reservations"
            />
          )}
        </SimpleGrid>
      )}
      {ops && (
        <Paper withBorder p="md">
          <Title order={2} size="h5" mb="sm">
            Operations rated per day, last 30 days
          </Title>
          <Suspense fallback={<Loader size="sm" aria-label="Loading the chart" />}>
            <TrendChart perDay={ops.perDay} />
          </Suspense>
        </Paper>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {o?.nextBillRuns && (
          <Paper withBorder p="md" aria-label="Next bill runs" component="section">
            <Title order={2} size="h5" mb="xs">
              Next bill runs
            </Title>
            {o.nextBillRuns.length === 0 ? (
              <Text size="sm" c="dimmed">
                No active schedule.
              </Text>
            ) : (
              <Table fz="sm">
                <Table.Tbody>
                  {o.nextBillRuns.map((r) => (
                    <Table.Tr key={r.code}>
                      <Table.Td>{r.name}</Table.Td>
                      <Table.Td ta="right">{moment(r.nextFireDate)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Paper>
        )}
        {recent && (
          <Paper withBorder p="md" aria-label="Recent Expert runs" component="section">
            <Title order={2} size="h5" mb="xs">
              Recent Expert runs
            </Title>
            {recent.length === 0 ? (
              <Text size="sm" c="dimmed">
                No run yet.
              </Text>
            ) : (
              <Table fz="sm">
                <Table.Tbody>
                  {recent.map((r) => (
                    <Table.Tr key={r.id}>
                      <Table.Td>{r.savedQueryCode ?? 'ad hoc query'}</Table.Td>
                      <Table.Td>
                        {r.status ? r.status.toLowerCase() : 'running'}
                        {r.lineCount !== null && ` · ${r.lineCount.toLocaleString('en-GB')} lines`}
                      </Table.Td>
                      <Table.Td ta="right">{moment(r.startDate)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
            <Anchor component={Link} to="/expert" size="sm">
              Open Expert
            </Anchor>
          </Paper>
        )}
        {runs.error && !(runs.error instanceof ApiError && runs.error.status === 403) && (
          <ErrorMessage error={runs.error} />
        )}
      </SimpleGrid>
    </Stack>
  )
}
