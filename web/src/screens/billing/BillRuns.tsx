import { useState, type ReactNode } from 'react'
import { Link, Route, Routes, useParams } from 'react-router'
import {
  Alert,
  Anchor,
  Button,
  Group,
  Modal,
  Pagination,
  Paper,
  Progress,
  Radio,
  Select,
  Stack,
  Table,
  Tabs,
  Text,
  Title,
} from '@mantine/core'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, ok, type Got } from '../../client.ts'
import { ErrorMessage } from '../../components.tsx'
import { day, moment } from '../../format.ts'
import { INVOICE_STATUSES, InvoiceTable } from './Invoices.tsx'
import { amount, Empty, Facts, StatusBadge, words } from './parts.tsx'

type BillRun = Got<'/api/v1/billingRuns/{id}'>
type RunStatus = BillRun['status']

const RUN_STATUSES: RunStatus[] = [
  'NEW',
  'INVOICE_LINES_CREATED',
  'DRAFT_INVOICES',
  'REJECTED',
  'VALIDATED',
  'CANCELLED',
]
const PAGE = 25

const STEP_WORDS: Record<string, string> = {
  CREATING_INVOICE_LINES: 'Creating invoice lines',
  CREATING_INVOICES: 'Creating invoices',
  VALIDATING: 'Validating invoices',
  CANCELLING: 'Cancelling',
}

/** Where a run stands: its step and how many billing accounts (or invoices) of it are done, or that it waits. */
function RunProgress({ run }: { run: BillRun }) {
  const { step, done, total } = run.progress
  if (step === null) {
    const waiting = run.allowedActions.includes('advance')
    return (
      <Text size="sm" c="dimmed">
        {waiting ? 'Waiting for a person' : run.status === 'VALIDATED' || run.status === 'CANCELLED' ? 'Done' : 'Idle'}
      </Text>
    )
  }
  const value = total > 0 ? Math.min(100, (done / total) * 100) : 0
  return (
    <Stack gap={2} miw={140}>
      <Text size="xs">
        {STEP_WORDS[step] ?? step}: {done} of {total}
      </Text>
      <Progress value={value} size="sm" animated aria-label={`${STEP_WORDS[step] ?? step}: ${done} of ${total}`} />
    </Stack>
  )
}

const invoiceCount = (run: BillRun) => Object.values(run.counts.invoices).reduce((sum, n) => sum + n, 0)

/** Bill runs, newest first, with their status, progress and amounts; each leads to its page. */
function RunList() {
  const [status, setStatus] = useState<RunStatus | null>(null)
  const [page, setPage] = useState(1)
  const query = { offset: (page - 1) * PAGE, limit: PAGE, ...(status ? { status } : {}) }
  const list = useQuery({
    queryKey: ['bill-runs', query],
    queryFn: () => ok(api.GET('/api/v1/billingRuns', { params: { query } })),
    placeholderData: keepPreviousData,
    // While a run is working, its progress moves: read again every 2 s until none is.
    refetchInterval: (q) => (q.state.data?.data.some((r) => r.progress.step !== null) ? 2000 : false),
  })
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE)) : 1
  return (
    <Stack gap="md">
      <Title order={1}>Bill runs</Title>
      <Text size="sm">
        A bill run turns the open wallet operations of a billing cycle into invoices: invoice lines first, then draft
        invoices, then validated ones. Runs are created by billing run schedules or one at a time through the API.
      </Text>
      <Group>
        <Select
          label="Status"
          placeholder="Any"
          clearable
          data={RUN_STATUSES.map((s) => ({ value: s, label: words(s) }))}
          value={status}
          onChange={(value) => {
            setStatus(value)
            setPage(1)
          }}
          w={200}
        />
      </Group>
      <ErrorMessage error={list.error} />
      {list.data &&
        (list.data.data.length === 0 ? (
          <Empty>
            {status
              ? `No bill run is ${words(status).toLowerCase()}.`
              : 'No bill runs yet. A billing run schedule creates them when it fires, or POST /api/v1/billingRuns creates one.'}
          </Empty>
        ) : (
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover aria-label="Bill runs" verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Run</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Progress</Table.Th>
                  <Table.Th ta="right">Invoices</Table.Th>
                  <Table.Th ta="right">Without tax</Table.Th>
                  <Table.Th ta="right">With tax</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.data.map((run) => (
                  <Table.Tr key={run.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/billing/runs/${run.id}`}>
                        Run {run.id}
                      </Anchor>
                      <Text size="xs" c="dimmed">
                        {run.billingCycle} · {words(run.processType)} · {day(run.invoiceDate)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={run.status} />
                    </Table.Td>
                    <Table.Td>
                      <RunProgress run={run} />
                    </Table.Td>
                    <Table.Td ta="right">{invoiceCount(run)}</Table.Td>
                    <Table.Td ta="right">{amount(run.amountWithoutTax)}</Table.Td>
                    <Table.Td ta="right">{amount(run.amountWithTax)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        ))}
      {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} size="sm" />}
    </Stack>
  )
}

/** What `advance` does from where the run stands, in a sentence. */
function advanceWords(run: BillRun): string {
  if (run.status === 'INVOICE_LINES_CREATED')
    return 'Advance creates the draft invoices from the run’s invoice lines, one per billing account, with their totals, and checks them against the invoice validation rules.'
  return 'Advance validates the run’s draft invoices: each gets its number, its final dates and its PDF, and never changes afterwards.'
}

const CANCEL_WORDS =
  'Cancel deletes the run’s invoice lines and its invoices not validated; their wallet operations become open again for a later run (or are cancelled, if you choose).'

/** A run's buttons: only the actions the server says its state allows, each with what it does. */
function RunActions({ run }: { run: BillRun }) {
  const client = useQueryClient()
  const [cancelling, setCancelling] = useState(false)
  const [mode, setMode] = useState<'REOPEN' | 'CANCEL'>('REOPEN')
  const act = useMutation({
    mutationFn: (action: 'advance' | 'cancel') =>
      action === 'advance'
        ? ok(api.POST('/api/v1/billingRuns/{id}/advance', { params: { path: { id: run.id } } }))
        : ok(
            api.POST('/api/v1/billingRuns/{id}/cancel', {
              params: { path: { id: run.id } },
              body: { walletOperations: mode },
            }),
          ),
    onSuccess: (changed) => {
      client.setQueryData(['bill-run', run.id], changed)
      void client.invalidateQueries({ queryKey: ['bill-runs'] })
      void client.invalidateQueries({ queryKey: ['invoices'] })
      setCancelling(false)
    },
  })
  if (run.allowedActions.length === 0)
    return (
      <Text size="sm" c="dimmed" data-testid="no-actions">
        {run.progress.step !== null
          ? 'The run is working; its actions come back when this step ends.'
          : run.status === 'VALIDATED' || run.status === 'CANCELLED'
            ? 'This run is done: nothing changes it any more.'
            : run.status === 'REJECTED'
              ? 'Its rejected invoices wait for a person: validate, cancel or move each of them from its page.'
              : 'Nothing waits for a person now.'}
      </Text>
    )
  return (
    <Paper withBorder p="md" component="section" aria-label="Actions">
      <Stack gap="sm">
        {run.allowedActions.map((action) => (
          <Group key={action} wrap="nowrap" align="start" gap="sm" className="action-row">
            <Button
              color={action === 'cancel' ? 'red' : undefined}
              variant={action === 'cancel' ? 'default' : 'filled'}
              loading={act.isPending && act.variables === action}
              onClick={() => (action === 'cancel' ? setCancelling(true) : act.mutate('advance'))}
              miw={96}
              className="action-button"
            >
              {words(action)}
            </Button>
            <Text size="sm">{action === 'advance' ? advanceWords(run) : CANCEL_WORDS}</Text>
          </Group>
        ))}
        <ErrorMessage error={act.error} />
      </Stack>
      <Modal opened={cancelling} onClose={() => setCancelling(false)} title={`Cancel run ${run.id}?`}>
        <Stack gap="sm">
          <Text size="sm">{CANCEL_WORDS}</Text>
          <Radio.Group label="Its wallet operations" value={mode} onChange={(v) => setMode(v)}>
            <Stack gap={6} mt={4}>
              <Radio value="REOPEN" label="Open again, billed by a later run" />
              <Radio value="CANCEL" label="Cancelled, never billed" />
            </Stack>
          </Radio.Group>
          <Group justify="end">
            <Button variant="default" onClick={() => setCancelling(false)}>
              Keep it
            </Button>
            <Button color="red" loading={act.isPending} onClick={() => act.mutate('cancel')}>
              Cancel the run
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  )
}

/** A run's invoices, a tab per status it has. */
function RunInvoices({ run }: { run: BillRun }) {
  const present = INVOICE_STATUSES.filter((s) => (run.counts.invoices[s] ?? 0) > 0)
  const [chosen, setChosen] = useState<string | null>(null)
  const status = chosen && present.includes(chosen as (typeof present)[number]) ? chosen : (present[0] ?? null)
  const query = { billRun: run.id, limit: 100, ...(status ? { status: status as (typeof present)[number] } : {}) }
  const list = useQuery({
    queryKey: ['invoices', query, run.status, run.counts.invoices],
    queryFn: () => ok(api.GET('/api/v1/invoices', { params: { query } })),
    enabled: status !== null,
  })
  return (
    <section aria-label="Invoices of the run">
      <Title order={2} mb="xs">
        Invoices
      </Title>
      {present.length === 0 ? (
        <Empty>
          {run.status === 'NEW' || run.status === 'INVOICE_LINES_CREATED'
            ? 'No invoices yet: they are created from the invoice lines when the run advances.'
            : 'This run has no invoices.'}
        </Empty>
      ) : (
        <Tabs value={status} onChange={setChosen} keepMounted={false}>
          <Tabs.List>
            {present.map((s) => (
              <Tabs.Tab key={s} value={s}>
                {words(s)} ({run.counts.invoices[s]})
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Stack pt="sm">
            <ErrorMessage error={list.error} />
            {list.data && (
              <>
                <InvoiceTable invoices={list.data.data} caption={`Invoices ${words(status ?? '').toLowerCase()}`} />
                {list.data.total > list.data.data.length && (
                  <Text size="sm" c="dimmed">
                    The first {list.data.data.length} of {list.data.total};{' '}
                    <Anchor component={Link} to="/billing/invoices">
                      the invoice list
                    </Anchor>{' '}
                    filters by run {run.id} for the rest.
                  </Text>
                )}
              </>
            )}
          </Stack>
        </Tabs>
      )}
    </section>
  )
}

/** One run: its state and progress, counts and amounts, the actions it allows and its invoices by status. */
function RunPage() {
  const id = Number(useParams().id)
  const found = useQuery({
    queryKey: ['bill-run', id],
    queryFn: () => ok(api.GET('/api/v1/billingRuns/{id}', { params: { path: { id } } })),
    enabled: Number.isInteger(id) && id > 0,
    refetchInterval: (q) => (q.state.data && q.state.data.progress.step !== null ? 1000 : false),
  })
  if (!Number.isInteger(id) || id <= 0) return <Empty>There is no bill run at this address.</Empty>
  if (found.error) return <ErrorMessage error={found.error} />
  const run = found.data
  if (!run) return <Text>Loading the bill run…</Text>
  return (
    <Stack gap="lg">
      <Anchor component={Link} to="/billing/runs" size="sm">
        ← Bill runs
      </Anchor>
      <Group gap="sm" align="center">
        <Title order={1}>Bill run {run.id}</Title>
        <StatusBadge status={run.status} />
      </Group>
      {run.description && <Text>{run.description}</Text>}
      {run.lastError && (
        <Alert color="red" title="The last step failed; it is tried again">
          {run.lastError}
        </Alert>
      )}
      <RunProgress run={run} />
      <RunActions run={run} />
      <Facts
        items={[
          ['Billing cycle', run.billingCycle],
          ['Process', words(run.processType)],
          ['Operations up to', day(run.lastTransactionDate)],
          ['Invoice date', day(run.invoiceDate)],
          ['Invoice lines', String(run.counts.invoiceLines)],
          ['Wallet operations billed', String(run.counts.walletOperations)],
          ['Without tax', amount(run.amountWithoutTax)],
          ['Tax', amount(run.amountTax)],
          ['With tax', amount(run.amountWithTax)],
          ['Schedule', run.scheduleCode ?? 'One-off run'],
          ['Started', moment(run.progress.startedAt)],
          ['Ended', moment(run.progress.endedAt)],
          ...(run.nextBillRunId
            ? ([['Moved invoices to', <RunLink key="n" id={run.nextBillRunId} />]] as [string, ReactNode][])
            : []),
          ...(run.originBillRunId
            ? ([['Invoices moved from', <RunLink key="o" id={run.originBillRunId} />]] as [string, ReactNode][])
            : []),
        ]}
      />
      <RunInvoices run={run} />
    </Stack>
  )
}

const RunLink = ({ id }: { id: number }) => (
  <Anchor component={Link} to={`/billing/runs/${id}`}>
    Run {id}
  </Anchor>
)

/** billing/runs and billing/runs/:id. */
export function BillRuns() {
  return (
    <div className="screen billing">
      <Routes>
        <Route index element={<RunList />} />
        <Route path=":id" element={<RunPage />} />
      </Routes>
    </div>
  )
}
