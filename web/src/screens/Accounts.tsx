import { useQuery } from '@tanstack/react-query'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import { Anchor, Breadcrumbs, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { api, ok } from '../client.ts'
import { ErrorMessage } from '../components.tsx'
import { AccountPicker, type AccountKind } from '../AccountPicker.tsx'
import { day } from '../format.ts'
import { amount } from './OrderPreview.tsx'
import { queryRecords, text } from '../query-api.ts'
import { SUBSCRIPTION_FIELDS, Subscriptions, WALLET_OPERATION_FIELDS, WalletOperations } from './Orders.tsx'

interface Level {
  readonly kind: AccountKind
  /** The path segment under /accounts/. */
  readonly path: string
  readonly title: string
  /** The field naming the parent record, and the parent's level. */
  readonly parent?: { readonly field: string; readonly level: string }
  /** The level of the children, and the filter key that names this record in them. */
  readonly children?: { readonly level: string; readonly key: string }
  /** Filter keys of subscriptions and wallet operations under this record. */
  readonly subscriptions: string
  readonly operations: string
}

const LEVELS: Record<string, Level> = {
  customers: {
    kind: 'customer',
    path: 'customers',
    title: 'Customer',
    children: { level: 'customerAccounts', key: 'customer' },
    subscriptions: 'userAccount.billingAccount.customerAccount.customer.code',
    operations: 'billingAccount.customerAccount.customer.code',
  },
  customerAccounts: {
    kind: 'customerAccount',
    path: 'customerAccounts',
    title: 'Customer account',
    parent: { field: 'customer.code', level: 'customers' },
    children: { level: 'billingAccounts', key: 'customerAccount' },
    subscriptions: 'userAccount.billingAccount.customerAccount.code',
    operations: 'billingAccount.customerAccount.code',
  },
  billingAccounts: {
    kind: 'billingAccount',
    path: 'billingAccounts',
    title: 'Billing account',
    parent: { field: 'customerAccount.code', level: 'customerAccounts' },
    children: { level: 'userAccounts', key: 'billingAccount' },
    subscriptions: 'userAccount.billingAccount.code',
    operations: 'billingAccount.code',
  },
  userAccounts: {
    kind: 'userAccount',
    path: 'userAccounts',
    title: 'User account',
    parent: { field: 'billingAccount.code', level: 'billingAccounts' },
    subscriptions: 'userAccount.code',
    operations: 'wallet.userAccount.code',
  },
}

const RECORD_FIELDS = ['code', 'name', 'description', 'status']

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Stack component="section" aria-label={title} gap="xs">
      <Title order={2} size="h3">
        {title}
      </Title>
      {children}
    </Stack>
  )
}

function Invoices({ billingAccount }: { billingAccount: string }) {
  const invoices = useQuery({
    queryKey: ['invoices', 'billingAccount', billingAccount],
    queryFn: () => ok(api.GET('/api/v1/invoices', { params: { query: { billingAccount, limit: 100 } } })),
  })
  const rows = invoices.data?.data ?? []
  return (
    <Section title="Invoices">
      <ErrorMessage error={invoices.error} />
      {invoices.data && rows.length === 0 && <Text c="dimmed">No invoices yet.</Text>}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={0}>
          <Table aria-label="Invoices of the account" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Invoice</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th visibleFrom="sm">Date</Table.Th>
                <Table.Th ta="right">With tax</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((i) => (
                <Table.Tr key={i.id ?? i.invoiceNumber}>
                  <Table.Td>{i.invoiceNumber ?? `Draft ${i.id}`}</Table.Td>
                  <Table.Td>{i.status}</Table.Td>
                  <Table.Td visibleFrom="sm">{day(i.invoiceDate)}</Table.Td>
                  <Table.Td ta="right">{amount((i as { amountWithTax?: unknown }).amountWithTax, i.currency)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Section>
  )
}

function Wallets({ userAccount }: { userAccount: string }) {
  const wallets = useQuery({
    queryKey: ['wallets', userAccount],
    queryFn: () => ok(api.GET('/api/v1/userAccounts/{code}/wallets', { params: { path: { code: userAccount } } })),
  })
  const rows = (wallets.data ?? []) as {
    code: string
    walletType: string
    currency: string
    balance: unknown
    reserved: unknown
    available: unknown
  }[]
  return (
    <Section title="Wallets">
      <ErrorMessage error={wallets.error} />
      {wallets.data && rows.length === 0 && <Text c="dimmed">No wallets.</Text>}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={0}>
          <Table aria-label="Wallets of the account" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Wallet</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th ta="right">Balance</Table.Th>
                <Table.Th ta="right" visibleFrom="sm">
                  Available
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((w) => (
                <Table.Tr key={w.code}>
                  <Table.Td>{w.code}</Table.Td>
                  <Table.Td>{w.walletType === 'PREPAID' ? 'Prepaid' : 'Postpaid'}</Table.Td>
                  <Table.Td ta="right">{amount(w.balance, w.currency)}</Table.Td>
                  <Table.Td ta="right" visibleFrom="sm">
                    {amount(w.available, w.currency)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Section>
  )
}

/** One record of the hierarchy: its parent, its children, its subscriptions and wallet operations. */
function AccountPage() {
  const { level: levelPath = '', code = '' } = useParams()
  const level = LEVELS[levelPath]
  const record = useQuery({
    queryKey: ['account', levelPath, code],
    queryFn: () =>
      queryRecords(level!.kind, {
        filters: { code },
        fields: [...RECORD_FIELDS, ...(level!.parent ? [level!.parent.field] : [])],
        limit: 1,
      }).then((page) => page.rows[0] ?? null),
    enabled: level !== undefined,
  })
  const children = useQuery({
    queryKey: ['account', levelPath, code, 'children'],
    queryFn: () =>
      queryRecords(LEVELS[level!.children!.level]!.kind, {
        filters: { [level!.children!.key]: code },
        fields: RECORD_FIELDS,
        sortBy: 'code',
      }),
    enabled: level?.children !== undefined,
  })
  const subscriptions = useQuery({
    queryKey: ['account', levelPath, code, 'subscriptions'],
    queryFn: () =>
      queryRecords('subscription', { filters: { [level!.subscriptions]: code }, fields: SUBSCRIPTION_FIELDS }),
    enabled: level !== undefined,
  })
  const operations = useQuery({
    queryKey: ['account', levelPath, code, 'walletOperations'],
    queryFn: () =>
      queryRecords('walletOperation', {
        filters: { [level!.operations]: code },
        fields: WALLET_OPERATION_FIELDS,
        sortBy: 'id',
        sortOrder: 'DESC',
        limit: 100,
      }),
    enabled: level !== undefined,
  })
  if (!level) return <Text>No such kind of account: {levelPath}.</Text>
  const row = record.data
  const parentCode = level.parent ? text(row ?? undefined, level.parent.field) : ''
  const childLevel = level.children ? LEVELS[level.children.level]! : undefined

  return (
    <Stack gap="md">
      <Breadcrumbs separator="›" style={{ flexWrap: 'wrap' }}>
        <Anchor component={Link} to="/accounts" size="sm">
          Accounts
        </Anchor>
        {parentCode && level.parent && (
          <Anchor component={Link} to={`/accounts/${level.parent.level}/${encodeURIComponent(parentCode)}`} size="sm">
            {LEVELS[level.parent.level]!.title} {parentCode}
          </Anchor>
        )}
      </Breadcrumbs>
      <Title order={1}>
        {level.title} {code}
      </Title>
      <ErrorMessage error={record.error ?? children.error ?? subscriptions.error ?? operations.error} />
      {record.data === null && (
        <Text>
          No {level.title.toLowerCase()} {code}.
        </Text>
      )}
      {row && (
        <Paper withBorder p="sm">
          <Text fw={600}>{text(row, 'name') || text(row, 'description')}</Text>
          {text(row, 'name') && <Text size="sm">{text(row, 'description')}</Text>}
          {text(row, 'status') && (
            <Text size="sm" c="dimmed">
              {text(row, 'status')}
            </Text>
          )}
        </Paper>
      )}
      {childLevel && (
        <Section title={`${childLevel.title}s`}>
          {children.data && children.data.rows.length === 0 && <Text c="dimmed">None.</Text>}
          <Stack gap={4}>
            {(children.data?.rows ?? []).map((c) => (
              <Anchor
                key={text(c, 'code')}
                component={Link}
                to={`/accounts/${childLevel.path}/${encodeURIComponent(text(c, 'code'))}`}
              >
                {text(c, 'code')} · {text(c, 'name') || text(c, 'description')}
              </Anchor>
            ))}
          </Stack>
        </Section>
      )}
      <Section title="Subscriptions">
        <Subscriptions rows={subscriptions.data?.rows ?? []} />
      </Section>
      {level.kind === 'userAccount' && <Wallets userAccount={code} />}
      {level.kind === 'billingAccount' && <Invoices billingAccount={code} />}
      <Section title="Wallet operations">
        <WalletOperations rows={operations.data?.rows ?? []} label="Wallet operations of the account" />
        {(operations.data?.total ?? 0) > (operations.data?.rows.length ?? 0) && (
          <Text size="sm" c="dimmed">
            The latest {operations.data?.rows.length} of {operations.data?.total}.
          </Text>
        )}
      </Section>
    </Stack>
  )
}

/** Find an account at any level by typing, then walk down the hierarchy. */
function AccountSearch() {
  const navigate = useNavigate()
  const customers = useQuery({
    queryKey: ['account', 'customers', 'first'],
    queryFn: () => queryRecords('customer', { fields: RECORD_FIELDS, sortBy: 'code', limit: 20 }),
  })
  return (
    <Stack gap="md">
      <Title order={1}>Accounts</Title>
      <Text c="dimmed" size="sm">
        Customer → customer account → billing account → user account: type a code or a name at any level.
      </Text>
      {Object.values(LEVELS).map((level) => (
        <AccountPicker
          key={level.path}
          kind={level.kind}
          label={`Find a ${level.title.toLowerCase()}`}
          value=""
          onChange={(code) => code && void navigate(`/accounts/${level.path}/${encodeURIComponent(code)}`)}
        />
      ))}
      <Section title="Customers">
        <ErrorMessage error={customers.error} />
        <Stack gap={4}>
          {(customers.data?.rows ?? []).map((c) => (
            <Anchor key={text(c, 'code')} component={Link} to={`/accounts/customers/${text(c, 'code')}`}>
              {text(c, 'code')} · {text(c, 'name') || text(c, 'description')}
            </Anchor>
          ))}
        </Stack>
        {(customers.data?.total ?? 0) > 20 && (
          <Text size="sm" c="dimmed">
            The first 20 of {customers.data?.total}: find the others by typing above.
          </Text>
        )}
      </Section>
    </Stack>
  )
}

/** The account hierarchy: a search, and a page per record with what hangs below it. */
export function Accounts() {
  return (
    <Routes>
      <Route index element={<AccountSearch />} />
      <Route path=":level/:code" element={<AccountPage />} />
    </Routes>
  )
}
