import { useState, type SyntheticEvent } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Alert, Button, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core'
import { AccountPicker } from '../AccountPicker.tsx'
import { api, ok, type Got } from '../client.ts'
import { DataTable, ErrorMessage, Notice, notify, type Column } from '../components.tsx'
import { day, money, moment, quantity } from '../format.ts'

type Wallet = Got<'/api/v1/userAccounts/{code}/wallets'>[number]
/** The fields the screen asks the Query API for, one reservation a row. */
interface Reservation {
  id: number
  type: string
  quantity: number | string
  amountWithTax: number | string
  reservationDate: string
  expiryDate: string
  wallet: { code: string } | null
  subscription: { code: string } | null
  offer: { code: string } | null
}
const RESERVATION_FIELDS =
  'id,type,quantity,amountWithTax,reservationDate,expiryDate,wallet.code,subscription.code,offer.code'
/** One operation of a wallet's history. */
interface Operation {
  id: number
  code: string
  description: string | null
  status: string
  chargeType: string
  operationDate: string
  quantity: number | string
  amountWithTax: number | string
  currency: { code: string } | null
}
const OPERATION_FIELDS = 'id,code,description,status,chargeType,operationDate,quantity,amountWithTax,currency.code'

/** Amounts arrive as exact JSON numbers or decimal strings: written as text, never computed with. */
const text = (value: number | string) => String(value)

/** Queries the Query API's list of an entity (the fields asked for, as the caller may see them). */
async function queryList<T>(entity: string, query: Record<string, string | number>): Promise<T[]> {
  const page = await ok(api.GET('/api/v1/query/{entity}', { params: { path: { entity }, query } }))
  return (page as unknown as { data: T[] }).data
}

const CHARGE_TYPES: Record<string, string> = {
  ONE_SHOT_SUBSCRIPTION: 'one-time, at subscription',
  ONE_SHOT_TERMINATION: 'one-time, at termination',
  ONE_SHOT_OTHER: 'one-time',
  RECURRING: 'recurring',
  USAGE: 'usage',
}

/** A wallet's operations, newest first (the Query API, 100 at most). */
function History({ account, wallet }: { account: string; wallet: Wallet }) {
  const history = useQuery({
    queryKey: ['wallet-operations', account, wallet.code],
    queryFn: () =>
      queryList<Operation>('walletOperation', {
        filters: JSON.stringify({ 'wallet.userAccount.code': account, 'wallet.code': wallet.code }),
        fields: OPERATION_FIELDS,
        sortBy: 'operationDate,id',
        sortOrder: 'DESCENDING,DESCENDING',
        limit: 100,
      }),
  })
  const columns: Column<Operation>[] = [
    { key: 'operationDate', header: 'Date', text: (o) => o.operationDate, render: (o) => day(o.operationDate) },
    { key: 'description', header: 'Operation', text: (o) => o.description ?? o.code },
    { key: 'chargeType', header: 'Type', text: (o) => CHARGE_TYPES[o.chargeType] ?? o.chargeType },
    { key: 'status', header: 'Status', text: (o) => o.status.toLowerCase() },
    { key: 'quantity', header: 'Quantity', numeric: true, text: (o) => quantity(text(o.quantity)) },
    {
      key: 'amountWithTax',
      header: 'Amount, with tax',
      numeric: true,
      text: (o) => money(text(o.amountWithTax), o.currency?.code ?? wallet.currency),
    },
  ]
  return (
    <section aria-label={`Operations of ${wallet.code}`}>
      <Title order={3} size="h5" mt="md">
        Operations of {wallet.code}
      </Title>
      <ErrorMessage error={history.error} />
      {history.data &&
        (history.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            No operation on this wallet yet.
          </Text>
        ) : (
          <DataTable
            label={`Operations of ${wallet.code}`}
            rows={history.data}
            columns={columns}
            rowKey={(o) => o.id}
          />
        ))}
    </section>
  )
}

/** A user account's prepaid side: its wallets (balance, reserved, available), credits, reservations and history. */
export function Prepaid() {
  const client = useQueryClient()
  const [account, setAccount] = useState<string | null>(null)
  const [error, setError] = useState<unknown>()
  const [message, setMessage] = useState<string>()
  const [walletCode, setWalletCode] = useState<string | null>(null)
  const [historyOf, setHistoryOf] = useState<string>()
  const [credit, setCredit] = useState('')
  const [reference, setReference] = useState('')
  const [newWallet, setNewWallet] = useState('')

  const wallets = useQuery({
    queryKey: ['wallets', account],
    enabled: !!account,
    queryFn: () => ok(api.GET('/api/v1/userAccounts/{code}/wallets', { params: { path: { code: account! } } })),
  })
  const reservations = useQuery({
    queryKey: ['reservations', account],
    enabled: !!account,
    queryFn: () =>
      queryList<Reservation>('reservation', {
        filters: JSON.stringify({ 'userAccount.code': account, status: 'OPEN' }),
        fields: RESERVATION_FIELDS,
        sortBy: 'reservationDate',
        limit: 100,
      }),
  })
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['wallets', account] })
    void client.invalidateQueries({ queryKey: ['reservations', account] })
    void client.invalidateQueries({ queryKey: ['wallet-operations', account] })
    void client.invalidateQueries({ queryKey: ['overview'] })
  }

  const prepaid = wallets.data?.filter((w) => w.walletType === 'PREPAID') ?? []
  const creditWallet = prepaid.some((w) => w.code === walletCode) ? walletCode : (prepaid[0]?.code ?? null)
  const currencyOf = (code: string | undefined) => wallets.data?.find((w) => w.code === code)?.currency

  const begin = () => {
    setError(undefined)
    setMessage(undefined)
  }
  const submitCredit = (event: SyntheticEvent) => {
    event.preventDefault()
    begin()
    if (!account || !creditWallet) return
    ok(
      api.POST('/api/v1/userAccounts/{code}/wallets/{walletCode}/credits', {
        params: { path: { code: account, walletCode: creditWallet } },
        body: { amount: credit.trim(), reference: reference.trim() || null },
      }),
    ).then((w) => {
      setMessage(
        `Credited ${creditWallet} with ${money(credit.trim(), w.currency)}: ${money(text(w.available), w.currency)} available.`,
      )
      setCredit('')
      setReference('')
      refresh()
    }, setError)
  }
  const createWallet = (event: SyntheticEvent) => {
    event.preventDefault()
    begin()
    const code = newWallet.trim()
    if (!account) return
    ok(
      api.POST('/api/v1/userAccounts/{code}/wallets', {
        params: { path: { code: account } },
        body: { code, walletType: 'PREPAID' },
      }),
    ).then((w) => {
      setMessage(`Created the prepaid wallet ${w.code} in ${w.currency}.`)
      setNewWallet('')
      setWalletCode(w.code)
      refresh()
    }, setError)
  }
  const settle = useMutation({
    mutationFn: ({ id, confirm }: { id: number; confirm: boolean }) =>
      confirm
        ? ok(api.POST('/api/rest/billing/mediation/confirmReservation', { body: { reservationId: id } }))
        : ok(api.POST('/api/rest/billing/mediation/cancelReservation', { body: { reservationId: id } })),
    onMutate: begin,
    onSuccess: (_, { id, confirm }) => {
      const said = confirm ? `Confirmed reservation ${id}: its usage is charged.` : `Released reservation ${id}.`
      setMessage(said)
      notify(said)
      refresh()
    },
    onError: setError,
  })

  const walletColumns: Column<Wallet>[] = [
    { key: 'code', header: 'Wallet', render: (w) => <span className="code">{w.code}</span> },
    { key: 'walletType', header: 'Type', text: (w) => w.walletType.toLowerCase() },
    { key: 'balance', header: 'Balance', numeric: true, text: (w) => money(text(w.balance), w.currency) },
    { key: 'reserved', header: 'Reserved', numeric: true, text: (w) => money(text(w.reserved), w.currency) },
    {
      key: 'available',
      header: 'Available',
      numeric: true,
      text: (w) => money(text(w.available), w.currency),
      render: (w) => <strong>{money(text(w.available), w.currency)}</strong>,
    },
  ]
  const reservationColumns: Column<Reservation>[] = [
    { key: 'id', header: 'Reservation', render: (r) => <span className="code">{r.id}</span> },
    { key: 'type', header: 'Type', text: (r) => r.type.toLowerCase() },
    { key: 'wallet', header: 'Wallet', text: (r) => r.wallet?.code ?? '–' },
    { key: 'for', header: 'Subscription or offer', text: (r) => r.subscription?.code ?? r.offer?.code ?? '–' },
    { key: 'quantity', header: 'Quantity', numeric: true, text: (r) => quantity(text(r.quantity)) },
    {
      key: 'amountWithTax',
      header: 'Held, with tax',
      numeric: true,
      text: (r) => money(text(r.amountWithTax), currencyOf(r.wallet?.code) ?? wallets.data?.[0]?.currency),
    },
    { key: 'reservationDate', header: 'Reserved', text: (r) => moment(r.reservationDate) },
    { key: 'expiryDate', header: 'Expires', text: (r) => moment(r.expiryDate) },
  ]

  return (
    <Paper withBorder p="md" className="screen prepaid">
      <Title order={1} size="h3" mb="xs">
        Prepaid
      </Title>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <AccountPicker
          kind="userAccount"
          label="User account"
          value={account ?? ''}
          onChange={(code) => {
            begin()
            setAccount(code || null)
            setHistoryOf(undefined)
          }}
          w={{ base: '100%', xs: 320 }}
        />
        {account && (
          <Button variant="default" onClick={refresh}>
            Refresh
          </Button>
        )}
      </Group>
      <Notice message={message} />
      <ErrorMessage error={error ?? wallets.error ?? reservations.error} />
      {account && wallets.data && (
        <section aria-label="Wallets">
          <Title order={2} size="h4" mt="md">
            Wallets of {account}
          </Title>
          {wallets.data.length === 0 ? (
            <Alert color="gray" variant="light" my="xs" data-testid="no-wallet">
              {account} has no wallet yet. Create a prepaid wallet below, then credit it.
            </Alert>
          ) : (
            <DataTable
              label="Wallets"
              rows={wallets.data}
              columns={walletColumns}
              rowKey={(w) => w.code}
              actions={(w) => (
                <Button
                  size="xs"
                  variant={historyOf === w.code ? 'light' : 'default'}
                  aria-label={`Operations of ${w.code}`}
                  onClick={() => setHistoryOf(historyOf === w.code ? undefined : w.code)}
                >
                  Operations
                </Button>
              )}
            />
          )}
          <SimpleGrid cols={{ base: 1, md: 2 }} mt="sm">
            {prepaid.length > 0 && (
              <form aria-label="Credit a wallet" onSubmit={submitCredit}>
                <Title order={3} size="h5">
                  Credit a prepaid wallet
                </Title>
                <Stack gap="xs">
                  <Select
                    label="Wallet to credit"
                    data={prepaid.map((w) => ({ value: w.code, label: `${w.code} (${w.currency})` }))}
                    value={creditWallet}
                    onChange={setWalletCode}
                    allowDeselect={false}
                  />
                  <TextInput
                    label="Amount"
                    inputMode="decimal"
                    value={credit}
                    onChange={(e) => setCredit(e.currentTarget.value)}
                    required
                  />
                  <TextInput
                    label="Reference (optional)"
                    value={reference}
                    onChange={(e) => setReference(e.currentTarget.value)}
                    maxLength={255}
                  />
                  <Group>
                    <Button type="submit">Credit</Button>
                  </Group>
                </Stack>
              </form>
            )}
            <form aria-label="New prepaid wallet" onSubmit={createWallet}>
              <Title order={3} size="h5">
                New prepaid wallet
              </Title>
              <Stack gap="xs">
                <TextInput
                  label="Wallet code"
                  value={newWallet}
                  onChange={(e) => setNewWallet(e.currentTarget.value)}
                  required
                  maxLength={255}
                />
                <Group>
                  <Button type="submit" variant="default">
                    Create wallet
                  </Button>
                </Group>
              </Stack>
            </form>
          </SimpleGrid>
          {historyOf && wallets.data.some((w) => w.code === historyOf) && (
            <History account={account} wallet={wallets.data.find((w) => w.code === historyOf)!} />
          )}
        </section>
      )}
      {account && reservations.data && (
        <section aria-label="Open reservations">
          <Title order={2} size="h4" mt="md">
            Open reservations
          </Title>
          {reservations.data.length === 0 ? (
            <p className="muted">No open reservation.</p>
          ) : (
            <DataTable
              label="Open reservations"
              rows={reservations.data}
              columns={reservationColumns}
              rowKey={(r) => r.id}
              actions={(r) => (
                <>
                  <Button
                    size="xs"
                    variant="default"
                    aria-label={`Confirm reservation ${r.id}`}
                    loading={settle.isPending && settle.variables?.id === r.id && settle.variables.confirm}
                    disabled={settle.isPending}
                    onClick={() => settle.mutate({ id: r.id, confirm: true })}
                  >
                    Confirm
                  </Button>
                  <Button
                    size="xs"
                    variant="subtle"
                    color="red"
                    aria-label={`Release reservation ${r.id}`}
                    disabled={settle.isPending}
                    onClick={() => {
                      if (window.confirm(`Release reservation ${r.id}? What it holds goes back to the wallet.`))
                        settle.mutate({ id: r.id, confirm: false })
                    }}
                  >
                    Release
                  </Button>
                </>
              )}
            />
          )}
        </section>
      )}
    </Paper>
  )
}
