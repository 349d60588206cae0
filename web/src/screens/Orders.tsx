import { useState } from 'react'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { Link, Route, Routes, useParams } from 'react-router'
import { Anchor, Badge, Group, Pagination, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { api, ok } from '../client.ts'
import { ErrorMessage } from '../components.tsx'
import { AccountPicker } from '../AccountPicker.tsx'
import { day } from '../format.ts'
import { queryRecords, text, type QueryRow } from '../query-api.ts'
import { amount, chargeTypeWords } from './OrderPreview.tsx'

const PAGE = 20

/** Rated amounts per order so far (its wallet operations), summed by the Query API. */
function useRatedAmounts(orderCodes: string[]) {
  return useQuery({
    queryKey: ['orders', 'rated', orderCodes],
    queryFn: () =>
      queryRecords('walletOperation', {
        filters: { 'inList order.code': orderCodes },
        fields: ['order.code', 'currency.code', 'SUM(amountWithoutTax)', 'SUM(amountWithTax)'],
        groupBy: ['order.code', 'currency.code'],
        limit: 1000,
      }),
    enabled: orderCodes.length > 0,
    select: (page) => new Map(page.rows.map((r) => [text(r, 'order.code'), r])),
  })
}

function OrderList() {
  const [page, setPage] = useState(1)
  const [billingAccount, setBillingAccount] = useState('')
  const orders = useQuery({
    queryKey: ['orders', 'list', billingAccount, page],
    queryFn: () =>
      queryRecords('order', {
        filters: billingAccount ? { billingAccount } : {},
        fields: ['id', 'code', 'status', 'orderDate', 'billingAccount.code', 'userAccount.code', 'seller.code'],
        limit: PAGE,
        offset: (page - 1) * PAGE,
        sortBy: 'id',
        sortOrder: 'DESC',
      }),
    placeholderData: keepPreviousData,
  })
  const codes = (orders.data?.rows ?? []).map((r) => text(r, 'code'))
  const rated = useRatedAmounts(codes)
  const pages = Math.max(1, Math.ceil((orders.data?.total ?? 0) / PAGE))

  return (
    <Stack gap="md">
      <Group justify="space-between" align="end">
        <Title order={1}>Orders</Title>
        <Anchor component={Link} to="/order">
          New order
        </Anchor>
      </Group>
      <AccountPicker
        kind="billingAccount"
        label="Billing account"
        value={billingAccount}
        placeholder="All billing accounts"
        onChange={(code) => {
          setBillingAccount(code)
          setPage(1)
        }}
      />
      <ErrorMessage error={orders.error ?? rated.error} />
      <Table.ScrollContainer minWidth={0}>
        <Table aria-label="Orders" striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Order</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Account</Table.Th>
              <Table.Th visibleFrom="sm">Date</Table.Th>
              <Table.Th ta="right">Rated with tax</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(orders.data?.rows ?? []).map((r) => {
              const code = text(r, 'code')
              const sums = rated.data?.get(code)
              return (
                <Table.Tr key={code}>
                  <Table.Td>
                    <Anchor component={Link} to={`/orders/${encodeURIComponent(code)}`}>
                      {code}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={text(r, 'status') === 'VALIDATED' ? 'green' : 'gray'}>
                      {text(r, 'status') === 'VALIDATED' ? 'Validated' : 'Draft'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/accounts/billingAccounts/${text(r, 'billingAccount.code')}`}>
                      {text(r, 'billingAccount.code')}
                    </Anchor>
                  </Table.Td>
                  <Table.Td visibleFrom="sm">{day(text(r, 'orderDate'))}</Table.Td>
                  <Table.Td ta="right">
                    {sums ? amount(sums['SUM(amountWithTax)'], text(sums, 'currency.code')) : '–'}
                  </Table.Td>
                </Table.Tr>
              )
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="space-between">
        <Text size="sm" c="dimmed" data-testid="order-count">
          {orders.data ? `${orders.data.total} orders` : 'Loading…'}
        </Text>
        {pages > 1 && <Pagination total={pages} value={page} onChange={setPage} size="sm" />}
      </Group>
    </Stack>
  )
}

/** Wallet operations as a table: date, charge, type, status, amounts in their currency. */
export function WalletOperations({ rows, label }: { rows: QueryRow[]; label: string }) {
  if (rows.length === 0) return <Text c="dimmed">No wallet operations.</Text>
  return (
    <Table.ScrollContainer minWidth={0}>
      <Table aria-label={label} verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Date</Table.Th>
            <Table.Th>Charge</Table.Th>
            <Table.Th visibleFrom="sm">Type</Table.Th>
            <Table.Th visibleFrom="sm">Status</Table.Th>
            <Table.Th ta="right">With tax</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((w) => (
            <Table.Tr key={text(w, 'id')}>
              <Table.Td>{day(text(w, 'operationDate'))}</Table.Td>
              <Table.Td>{text(w, 'description') || text(w, 'code')}</Table.Td>
              <Table.Td visibleFrom="sm">{chargeTypeWords(text(w, 'chargeType'))}</Table.Td>
              <Table.Td visibleFrom="sm">{text(w, 'status')}</Table.Td>
              <Table.Td ta="right">{amount(w.amountWithTax, text(w, 'currency.code'))}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}

export const WALLET_OPERATION_FIELDS = [
  'id',
  'code',
  'description',
  'chargeType',
  'status',
  'operationDate',
  'amountWithoutTax',
  'amountWithTax',
  'currency.code',
]

export const SUBSCRIPTION_FIELDS = ['id', 'code', 'status', 'subscriptionDate', 'offer.code', 'userAccount.code']

/** Subscriptions as a table: code, offer, status, since. */
export function Subscriptions({ rows }: { rows: QueryRow[] }) {
  if (rows.length === 0) return <Text c="dimmed">No subscriptions.</Text>
  return (
    <Table.ScrollContainer minWidth={0}>
      <Table aria-label="Subscriptions" verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Subscription</Table.Th>
            <Table.Th>Offer</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th visibleFrom="sm">Since</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((s) => (
            <Table.Tr key={text(s, 'id')}>
              <Table.Td>{text(s, 'code')}</Table.Td>
              <Table.Td>{text(s, 'offer.code')}</Table.Td>
              <Table.Td>{text(s, 'status')}</Table.Td>
              <Table.Td visibleFrom="sm">{day(text(s, 'subscriptionDate'))}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}

function OrderPage() {
  const { code = '' } = useParams()
  const order = useQuery({
    queryKey: ['orders', 'one', code],
    queryFn: () => ok(api.GET('/api/v1/orders/{code}', { params: { path: { code } } })),
  })
  const subscriptions = useQuery({
    queryKey: ['orders', 'subscriptions', code],
    queryFn: () => queryRecords('subscription', { filters: { order: code }, fields: SUBSCRIPTION_FIELDS }),
  })
  const operations = useQuery({
    queryKey: ['orders', 'walletOperations', code],
    queryFn: () =>
      queryRecords('walletOperation', {
        filters: { order: code },
        fields: WALLET_OPERATION_FIELDS,
        sortBy: 'id',
        limit: 200,
      }),
  })
  const rated = useRatedAmounts([code])
  const sums = rated.data?.get(code)
  const o = order.data

  return (
    <Stack gap="md">
      <Anchor component={Link} to="/orders" size="sm">
        ← Orders
      </Anchor>
      <Title order={1}>Order {code}</Title>
      <ErrorMessage error={order.error ?? subscriptions.error ?? operations.error} />
      {o && (
        <Paper withBorder p="md">
          <Table aria-label="Order" withRowBorders={false} verticalSpacing={2}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th scope="row">Status</Table.Th>
                <Table.Td>{o.status === 'VALIDATED' ? 'Validated' : 'Draft'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Billing account</Table.Th>
                <Table.Td>
                  <Anchor component={Link} to={`/accounts/billingAccounts/${o.billingAccountCode}`}>
                    {o.billingAccountCode}
                  </Anchor>
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">User account</Table.Th>
                <Table.Td>
                  <Anchor component={Link} to={`/accounts/userAccounts/${o.userAccountCode}`}>
                    {o.userAccountCode}
                  </Anchor>
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Seller</Table.Th>
                <Table.Td>{o.sellerCode}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Rated so far</Table.Th>
                <Table.Td data-testid="order-rated">
                  {sums
                    ? `${amount(sums['SUM(amountWithoutTax)'], text(sums, 'currency.code'))} without tax, ${amount(
                        sums['SUM(amountWithTax)'],
                        text(sums, 'currency.code'),
                      )} with tax`
                    : '–'}
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        </Paper>
      )}
      <Title order={2} size="h3">
        Subscriptions
      </Title>
      <Subscriptions rows={subscriptions.data?.rows ?? []} />
      <Title order={2} size="h3">
        Wallet operations
      </Title>
      <WalletOperations rows={operations.data?.rows ?? []} label="Wallet operations" />
    </Stack>
  )
}

/** The orders: a list (status, account, rated amounts) and a page per order. */
export function Orders() {
  return (
    <Routes>
      <Route index element={<OrderList />} />
      <Route path=":code" element={<OrderPage />} />
    </Routes>
  )
}
