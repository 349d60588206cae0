import { useEffect, useState, type ReactNode, type SyntheticEvent } from 'react'
import { Link, Route, Routes, useParams } from 'react-router'
import {
  Alert,
  Anchor,
  Button,
  Group,
  Modal,
  Pagination,
  Paper,
  Radio,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { AccountPicker } from '../../AccountPicker.tsx'
import { api, ok, type Schemas } from '../../client.ts'
import { ErrorMessage } from '../../components.tsx'
import { day, moment, quantity } from '../../format.ts'
import { amount, amountText, Empty, Facts, percent, StatusBadge, words } from './parts.tsx'

type InvoiceSummary = Schemas['InvoiceSummary']
type Invoice = Schemas['Invoice']
type InvoiceStatus = InvoiceSummary['status']

export const INVOICE_STATUSES: InvoiceStatus[] = ['DRAFT', 'SUSPECT', 'REJECTED', 'VALIDATED', 'CANCELLED']
const PAGE = 25

/** An invoice's name for a person: its number once validated, else what it is and its id. */
export function invoiceName(invoice: { id: number | null; invoiceNumber: string | null; invoiceType: string }): string {
  if (invoice.invoiceNumber) return invoice.invoiceNumber
  return `${invoice.invoiceType === 'CREDIT_NOTE' ? 'Credit note' : 'Invoice'} #${invoice.id ?? '?'}`
}

/** Invoices in a table: number, account, status, date and amounts; each leads to its page. */
export function InvoiceTable({ invoices, caption }: { invoices: InvoiceSummary[]; caption: string }) {
  return (
    <Table.ScrollContainer minWidth={320}>
      <Table striped highlightOnHover aria-label={caption} verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Invoice</Table.Th>
            <Table.Th visibleFrom="sm">Billing account</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th visibleFrom="sm">Date</Table.Th>
            <Table.Th ta="right">With tax</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {invoices.map((i) => (
            <Table.Tr key={i.id}>
              <Table.Td>
                <Anchor component={Link} to={`/billing/invoices/${i.id}`}>
                  {invoiceName(i)}
                </Anchor>
                {i.invoiceType === 'CREDIT_NOTE' && i.invoiceNumber && (
                  <Text span size="xs" c="dimmed">
                    {' '}
                    credit note
                  </Text>
                )}
                <Text size="xs" c="dimmed" hiddenFrom="sm">
                  {i.billingAccount} · {day(i.invoiceDate)}
                </Text>
              </Table.Td>
              <Table.Td visibleFrom="sm">
                {i.billingAccount}
                {i.billingAccountName && (
                  <Text size="xs" c="dimmed">
                    {i.billingAccountName}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <StatusBadge status={i.status} />
              </Table.Td>
              <Table.Td visibleFrom="sm">{day(i.invoiceDate)}</Table.Td>
              <Table.Td ta="right" className="amount">
                {amount(i.amountWithTax, i.currency)}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}

interface Filters {
  status: InvoiceStatus | ''
  billingAccount: string
  billRun: string
  from: string
  to: string
  search: string
}
const NO_FILTERS: Filters = { status: '', billingAccount: '', billRun: '', from: '', to: '', search: '' }

/** The invoice list's query from its filters (only those filled in). */
function invoiceQuery(filters: Filters, offset: number) {
  const run = /^\d+$/.test(filters.billRun.trim()) ? Number(filters.billRun.trim()) : undefined
  return {
    offset,
    limit: PAGE,
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.billingAccount ? { billingAccount: filters.billingAccount } : {}),
    ...(run !== undefined ? { billRun: run } : {}),
    ...(filters.from ? { invoiceDateFrom: filters.from } : {}),
    ...(filters.to ? { invoiceDateTo: filters.to } : {}),
    ...(filters.search.trim() ? { search: filters.search.trim() } : {}),
  }
}

/** Invoices and credit notes, newest first, filtered by status, account, run and dates, and searched. */
function InvoiceList() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS)
  const [page, setPage] = useState(1)
  // Typed filters wait for a pause before asking the server; the answer is keyed by them, so a late one is dropped.
  const [settled] = useDebouncedValue(filters, 300)
  const query = invoiceQuery(settled, (page - 1) * PAGE)
  const list = useQuery({
    queryKey: ['invoices', query],
    queryFn: () => ok(api.GET('/api/v1/invoices', { params: { query } })),
    placeholderData: keepPreviousData,
  })
  const set = (change: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...change }))
    setPage(1)
  }
  const filtered = Object.values(settled).some((v) => v !== '')
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE)) : 1
  return (
    <Stack gap="md">
      <Title order={1}>Invoices</Title>
      <Paper withBorder p="sm" component="form" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Group gap="sm" align="end" wrap="wrap">
          <TextInput
            label="Search"
            placeholder="Number, account code or name"
            value={filters.search}
            onChange={(e) => set({ search: e.currentTarget.value })}
            className="grow"
          />
          <Select
            label="Status"
            placeholder="Any"
            clearable
            data={INVOICE_STATUSES.map((s) => ({ value: s, label: words(s) }))}
            value={filters.status || null}
            onChange={(value) => set({ status: value ?? '' })}
            w={150}
          />
          <AccountPicker
            kind="billingAccount"
            label="Billing account"
            placeholder="Any"
            value={filters.billingAccount}
            onChange={(code) => set({ billingAccount: code })}
            w={{ base: '100%', xs: 240 }}
          />
          <TextInput
            label="Bill run"
            placeholder="Id"
            inputMode="numeric"
            value={filters.billRun}
            onChange={(e) => set({ billRun: e.currentTarget.value })}
            w={100}
          />
          <TextInput
            label="Dated from"
            type="date"
            value={filters.from}
            onChange={(e) => set({ from: e.currentTarget.value })}
            w={150}
          />
          <TextInput
            label="Dated to"
            type="date"
            value={filters.to}
            onChange={(e) => set({ to: e.currentTarget.value })}
            w={150}
          />
          {Object.values(filters).some((v) => v !== '') && (
            <Button variant="subtle" onClick={() => set(NO_FILTERS)}>
              Clear filters
            </Button>
          )}
        </Group>
      </Paper>
      <ErrorMessage error={list.error} />
      {list.data && (
        <>
          <Text size="sm" c="dimmed" data-testid="invoice-count">
            {list.data.total} {list.data.total === 1 ? 'invoice' : 'invoices'}
            {filtered ? ' match these filters' : ''}
          </Text>
          {list.data.data.length === 0 ? (
            <Empty>
              {filtered
                ? 'No invoice matches these filters. Change or clear them to see more.'
                : 'No invoices yet. A bill run creates them from the wallet operations of its billing cycle.'}
            </Empty>
          ) : (
            <InvoiceTable invoices={list.data.data} caption="Invoices" />
          )}
          {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} size="sm" />}
        </>
      )}
    </Stack>
  )
}

/** The PDF of an invoice, fetched with the session's token, shown in the page and offered as a file. */
function InvoicePdf({ invoice }: { invoice: Invoice }) {
  const id = invoice.id!
  const pdf = useQuery({
    // The document changes when the invoice is validated (its number, no DRAFT mark): keyed by both.
    queryKey: ['invoice-pdf', id, invoice.status, invoice.pdf?.sha256],
    queryFn: async () => {
      const blob = await ok(
        api.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id } }, parseAs: 'blob' }) as Promise<{
          data?: Blob
          error?: unknown
          response: Response
        }>,
      )
      return blob
    },
    staleTime: Infinity,
  })
  const [url, setUrl] = useState<string>()
  useEffect(() => {
    if (!pdf.data) return undefined
    const made = URL.createObjectURL(new Blob([pdf.data], { type: 'application/pdf' }))
    setUrl(made)
    return () => URL.revokeObjectURL(made)
  }, [pdf.data])
  const file = `${invoice.invoiceNumber ?? `draft-${id}`}.pdf`
  return (
    <section aria-label="Document">
      <Group justify="space-between" mb="xs">
        <Title order={2}>Document</Title>
        {url && (
          <Button component="a" href={url} download={file} variant="default" size="xs">
            Download {file}
          </Button>
        )}
      </Group>
      {invoice.status !== 'VALIDATED' && (
        <Text size="sm" c="dimmed" mb="xs">
          A draft is shown with a DRAFT mark and no number; it gets both when it is validated.
        </Text>
      )}
      <ErrorMessage error={pdf.error} />
      {pdf.isPending && <Text size="sm">Rendering the PDF…</Text>}
      {url && (
        <iframe src={url} title={`PDF of ${invoiceName(invoice)}`} className="invoice-pdf" data-testid="invoice-pdf" />
      )}
    </section>
  )
}

/** The credit note of a validated invoice: a reason, and the whole invoice or a net amount per line. */
function CreditNoteForm({ invoice, onCreated }: { invoice: Invoice; onCreated: (note: Invoice) => void }) {
  const id = invoice.id!
  const [reason, setReason] = useState('')
  const [whole, setWhole] = useState('whole')
  const [lineAmounts, setLineAmounts] = useState<Record<number, string>>({})
  const client = useQueryClient()
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/invoices/{id}/creditNotes', {
          params: { path: { id } },
          body:
            whole === 'whole'
              ? { reason: reason.trim(), whole: true }
              : {
                  reason: reason.trim(),
                  lines: Object.entries(lineAmounts)
                    .filter(([, value]) => value.trim() !== '')
                    .map(([line, value]) => ({ invoiceLine: Number(line), amountWithoutTax: value.trim() })),
                },
        }),
      ),
    onSuccess: (note) => {
      void client.invalidateQueries({ queryKey: ['invoices'] })
      void client.invalidateQueries({ queryKey: ['invoice', id] })
      onCreated(note)
    },
  })
  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    create.mutate()
  }
  return (
    <Paper withBorder p="md" component="form" aria-label="Credit note" onSubmit={submit}>
      <Stack gap="sm">
        <Title order={2}>Issue a credit note</Title>
        <Text size="sm">
          A validated invoice never changes: a credit note corrects it. It starts as a draft, gets its own number when
          it is validated, and together with the invoice&apos;s other credit notes never exceeds the invoice.
        </Text>
        <Textarea
          label="Reason"
          description="Printed on the credit note"
          required
          value={reason}
          onChange={(e) => setReason(e.currentTarget.value)}
          autosize
          minRows={2}
        />
        <Radio.Group label="What to credit" value={whole} onChange={setWhole}>
          <Group gap="lg" mt={4}>
            <Radio value="whole" label="The whole invoice" />
            <Radio value="lines" label="Amounts of some lines" />
          </Group>
        </Radio.Group>
        {whole === 'lines' && (
          <Stack gap="xs" aria-label="Amounts to credit">
            {invoice.lines.map((line) => (
              <TextInput
                key={line.id}
                label={`${line.label}: net to credit (of ${amount(line.amountWithoutTax, invoice.currency)})`}
                placeholder="0.00"
                inputMode="decimal"
                value={lineAmounts[line.id!] ?? ''}
                onChange={(e) => {
                  const value = e.currentTarget.value
                  setLineAmounts((all) => ({ ...all, [line.id!]: value }))
                }}
              />
            ))}
          </Stack>
        )}
        <ErrorMessage error={create.error} />
        <Group>
          <Button type="submit" loading={create.isPending} disabled={reason.trim() === ''}>
            Create the credit note
          </Button>
        </Group>
      </Stack>
    </Paper>
  )
}

const ACTION_WORDS = {
  validate:
    'Validate gives the invoice its number and final dates, creates its accounting operation when the run asks for one and renders its PDF. It never changes afterwards.',
  cancel:
    'Cancel removes the invoice; its wallet operations become open again and a later bill run bills them (or, if you choose, they are cancelled).',
  move: 'Move takes the invoice, with its lines, to the next bill run of its billing cycle, to be decided there.',
} as const

/** The buttons of a draft (validate, cancel, move): only those the server says its state allows. */
function DraftActions({ invoice }: { invoice: Invoice }) {
  const id = invoice.id!
  const client = useQueryClient()
  const [cancelling, setCancelling] = useState(false)
  const [mode, setMode] = useState<'REOPEN' | 'CANCEL'>('REOPEN')
  const done = (changed: Invoice) => {
    client.setQueryData(['invoice', id], changed)
    void client.invalidateQueries({ queryKey: ['invoices'] })
    void client.invalidateQueries({ queryKey: ['bill-runs'] })
    setCancelling(false)
  }
  const act = useMutation({
    mutationFn: (action: 'validate' | 'cancel' | 'move') => {
      const path = { params: { path: { id } } }
      if (action === 'validate') return ok(api.POST('/api/v1/invoices/{id}/validate', path))
      if (action === 'move') return ok(api.POST('/api/v1/invoices/{id}/move', path))
      return ok(api.POST('/api/v1/invoices/{id}/cancel', { ...path, body: { walletOperations: mode } }))
    },
    onSuccess: done,
  })
  const allowed = (invoice.allowedActions ?? []).filter((a) => a !== 'credit')
  if (allowed.length === 0) return null
  return (
    <Paper withBorder p="md" aria-label="Actions" component="section">
      <Stack gap="sm">
        <Title order={2}>Actions</Title>
        {allowed.map((action) => (
          <Group key={action} wrap="nowrap" align="start" gap="sm" className="action-row">
            <Button
              variant={action === 'validate' ? 'filled' : 'default'}
              color={action === 'cancel' ? 'red' : undefined}
              loading={act.isPending && act.variables === action}
              onClick={() => (action === 'cancel' ? setCancelling(true) : act.mutate(action))}
              miw={96}
              className="action-button"
            >
              {words(action)}
            </Button>
            <Text size="sm">{ACTION_WORDS[action]}</Text>
          </Group>
        ))}
        <ErrorMessage error={act.error} />
      </Stack>
      <Modal opened={cancelling} onClose={() => setCancelling(false)} title={`Cancel ${invoiceName(invoice)}?`}>
        <Stack gap="sm">
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
              Cancel the invoice
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  )
}

/** One invoice: its parties and dates, lines, tax breakdown, accounting operation, PDF and what can be done. */
function InvoicePage() {
  const id = Number(useParams().id)
  const [created, setCreated] = useState<Invoice>()
  const found = useQuery({
    queryKey: ['invoice', id],
    queryFn: () => ok(api.GET('/api/v1/invoices/{id}', { params: { path: { id } } })),
    enabled: Number.isInteger(id) && id > 0,
  })
  useEffect(() => setCreated(undefined), [id])
  if (!Number.isInteger(id) || id <= 0) return <Empty>There is no invoice at this address.</Empty>
  if (found.error) return <ErrorMessage error={found.error} />
  const invoice = found.data
  if (!invoice) return <Text>Loading the invoice…</Text>
  const currency = invoice.currency
  const ao = invoice.accountOperation
  return (
    <Stack gap="lg">
      <Anchor component={Link} to="/billing/invoices" size="sm">
        ← Invoices
      </Anchor>
      <Group gap="sm" align="center">
        <Title order={1}>{invoiceName(invoice)}</Title>
        <StatusBadge status={invoice.status} />
        {invoice.invoiceType === 'CREDIT_NOTE' && <Text c="dimmed">Credit note</Text>}
      </Group>
      {invoice.rejectReason && (
        <Alert color={invoice.status === 'REJECTED' ? 'red' : 'yellow'} title={`Rule ${invoice.rejectedByRule ?? ''}`}>
          {invoice.rejectReason}
        </Alert>
      )}
      {created && (
        <Alert color="green" role="status" title="Credit note created">
          <Anchor component={Link} to={`/billing/invoices/${created.id}`}>
            {invoiceName(created)}
          </Anchor>{' '}
          for {amount(created.amountWithTax, created.currency)} is a draft: open it to validate it.
        </Alert>
      )}
      <Facts
        items={[
          [
            'Billing account',
            `${invoice.billingAccount}${invoice.billingAccountName ? ` · ${invoice.billingAccountName}` : ''}`,
          ],
          ['Customer account', invoice.customerAccount],
          ['Seller', invoice.seller],
          ['Invoice date', day(invoice.invoiceDate)],
          ['Due date', day(invoice.dueDate)],
          ['Period', invoice.periodStart ? `${day(invoice.periodStart)} – ${day(invoice.periodEnd)}` : '–'],
          [
            'Bill run',
            invoice.billRun ? (
              <Anchor component={Link} to={`/billing/runs/${invoice.billRun}`}>
                Run {invoice.billRun}
              </Anchor>
            ) : (
              '–'
            ),
          ],
          ['Validated', moment(invoice.validatedAt)],
          ...(invoice.originalInvoice
            ? ([
                [
                  'Corrects',
                  <Anchor key="o" component={Link} to={`/billing/invoices/${invoice.originalInvoice.id}`}>
                    {invoice.originalInvoice.invoiceNumber ?? `Invoice #${invoice.originalInvoice.id}`}
                  </Anchor>,
                ],
              ] as [string, ReactNode][])
            : []),
          ...(invoice.reason ? ([['Reason', invoice.reason]] as [string, string][]) : []),
        ]}
      />
      <Paper withBorder p="md" aria-label="Totals" component="section">
        <Group gap="xl" wrap="wrap">
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              Without tax
            </Text>
            <Text fw={600}>{amount(invoice.amountWithoutTax, currency)}</Text>
          </Stack>
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              Tax
            </Text>
            <Text fw={600}>{amount(invoice.amountTax, currency)}</Text>
          </Stack>
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              With tax
            </Text>
            <Text fw={700} size="lg" data-testid="total">
              {amount(invoice.amountWithTax, currency)}
            </Text>
          </Stack>
        </Group>
      </Paper>
      <DraftActions invoice={invoice} />

      <section aria-label="Lines">
        <Title order={2} mb="xs">
          Lines
        </Title>
        {invoice.lines.length === 0 ? (
          <Empty>This invoice has no lines.</Empty>
        ) : (
          <Table.ScrollContainer minWidth={640}>
            <Table striped verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Label</Table.Th>
                  <Table.Th ta="right">Quantity</Table.Th>
                  <Table.Th ta="right">Unit price</Table.Th>
                  <Table.Th ta="right">Net</Table.Th>
                  <Table.Th ta="right">Tax rate</Table.Th>
                  <Table.Th ta="right">With tax</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {invoice.lines.map((line) => (
                  <Table.Tr key={line.id}>
                    <Table.Td>
                      {line.label}
                      {line.periodStart && (
                        <Text size="xs" c="dimmed">
                          {day(line.periodStart)} – {day(line.periodEnd)}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td ta="right">{quantity(amountText(line.quantity))}</Table.Td>
                    <Table.Td ta="right">{amount(line.unitAmountWithoutTax, currency)}</Table.Td>
                    <Table.Td ta="right">{amount(line.amountWithoutTax, currency)}</Table.Td>
                    <Table.Td ta="right">{percent(line.taxPercent)}</Table.Td>
                    <Table.Td ta="right">{amount(line.amountWithTax, currency)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </section>

      <section aria-label="Tax breakdown">
        <Title order={2} mb="xs">
          Tax breakdown
        </Title>
        {invoice.taxes.length === 0 ? (
          <Empty>No tax on this invoice.</Empty>
        ) : (
          <Table.ScrollContainer minWidth={360}>
            <Table verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Tax</Table.Th>
                  <Table.Th ta="right">Rate</Table.Th>
                  <Table.Th ta="right">Base</Table.Th>
                  <Table.Th ta="right">Tax</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {invoice.taxes.map((t) => (
                  <Table.Tr key={`${t.tax}-${String(t.taxPercent)}`}>
                    <Table.Td>{t.tax}</Table.Td>
                    <Table.Td ta="right">{percent(t.taxPercent)}</Table.Td>
                    <Table.Td ta="right">{amount(t.base, currency)}</Table.Td>
                    <Table.Td ta="right">{amount(t.amount, currency)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </section>

      <section aria-label="Accounting operation">
        <Title order={2} mb="xs">
          Accounting operation
        </Title>
        {ao ? (
          <Facts
            items={[
              ['Operation', `${words(ao.type)} · ${ao.direction === 'DEBIT' ? 'Debit' : 'Credit'}`],
              ['Reference', ao.reference],
              ['Amount', amount(ao.amount, currency)],
              ['Left to match', amount(ao.unmatchedAmount, currency)],
              ['Transaction date', day(ao.transactionDate)],
              ['Due date', day(ao.dueDate)],
              ['Matching', ao.matchingStatus === 'O' ? 'Open' : ao.matchingStatus],
            ]}
          />
        ) : (
          <Empty>
            {invoice.status === 'VALIDATED'
              ? 'None: its bill run does not generate accounting operations.'
              : 'None yet: one is created when the invoice is validated, if its bill run generates them.'}
          </Empty>
        )}
      </section>

      {invoice.invoiceType === 'INVOICE' && (
        <section aria-label="Credit notes">
          <Title order={2} mb="xs">
            Credit notes
          </Title>
          {invoice.creditNotes.length === 0 ? (
            <Empty>No credit note corrects this invoice.</Empty>
          ) : (
            <Stack gap={4}>
              {invoice.creditNotes.map((n) => (
                <Group key={n.id} gap="sm">
                  <Anchor component={Link} to={`/billing/invoices/${n.id}`}>
                    {n.invoiceNumber ?? `Credit note #${n.id} (no number yet)`}
                  </Anchor>
                  <StatusBadge status={n.status} />
                  <Text size="sm">{amount(n.amountWithTax, currency)}</Text>
                </Group>
              ))}
            </Stack>
          )}
        </section>
      )}
      {invoice.allowedActions?.includes('credit') && <CreditNoteForm invoice={invoice} onCreated={setCreated} />}
      <InvoicePdf invoice={invoice} />
    </Stack>
  )
}

/** billing/invoices and billing/invoices/:id. */
export function Invoices() {
  return (
    <div className="screen billing">
      <Routes>
        <Route index element={<InvoiceList />} />
        <Route path=":id" element={<InvoicePage />} />
      </Routes>
    </div>
  )
}
