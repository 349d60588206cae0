import { useCallback, useEffect, useState, type SyntheticEvent } from 'react'
import { api, ok, type Got } from '../client.ts'
import { ErrorMessage, Notice } from '../components.tsx'

type Wallet = Got<'/api/v1/userAccounts/{code}/wallets'>[number]
interface Account {
  code: string
  description?: string | null
}
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

/** Amounts are exact decimals the API writes as JSON numbers: shown as written, never computed with. */
const amount = (value: number | string) => String(value)
const when = (instant: string) => new Date(instant).toLocaleString()

/** A user account's prepaid side: its wallets (balance, reserved, available), credits, and open reservations. */
export function Prepaid() {
  const [accounts, setAccounts] = useState<Account[]>([])
  const [account, setAccount] = useState('')
  const [wallets, setWallets] = useState<Wallet[]>()
  const [reservations, setReservations] = useState<Reservation[]>()
  const [error, setError] = useState<unknown>()
  const [message, setMessage] = useState<string>()
  const [walletCode, setWalletCode] = useState('')
  const [credit, setCredit] = useState('')
  const [reference, setReference] = useState('')
  const [newWallet, setNewWallet] = useState('')

  useEffect(() => {
    ok(api.GET('/api/v1/userAccounts', { params: { query: { limit: 1000, sortBy: 'code' } } })).then(
      (page) => setAccounts((page.data ?? []) as unknown as Account[]),
      setError,
    )
  }, [])

  const load = useCallback((code: string) => {
    if (!code) {
      setWallets(undefined)
      setReservations(undefined)
      return
    }
    const filters = JSON.stringify({ 'userAccount.code': code, status: 'OPEN' })
    Promise.all([
      ok(api.GET('/api/v1/userAccounts/{code}/wallets', { params: { path: { code } } })),
      ok(
        api.GET('/api/v1/query/{entity}', {
          params: {
            path: { entity: 'reservation' },
            query: { filters, fields: RESERVATION_FIELDS, sortBy: 'reservationDate', limit: 100 },
          },
        }),
      ),
    ]).then(([w, r]) => {
      setWallets(w)
      setReservations((r as unknown as { data: Reservation[] }).data)
      const prepaid = w.filter((x) => x.walletType === 'PREPAID')
      setWalletCode((current) => (prepaid.some((x) => x.code === current) ? current : (prepaid[0]?.code ?? '')))
    }, setError)
  }, [])
  useEffect(() => {
    setError(undefined)
    setMessage(undefined)
    load(account)
  }, [account, load])

  const prepaid = wallets?.filter((w) => w.walletType === 'PREPAID') ?? []

  const submitCredit = (event: SyntheticEvent) => {
    event.preventDefault()
    setError(undefined)
    setMessage(undefined)
    ok(
      api.POST('/api/v1/userAccounts/{code}/wallets/{walletCode}/credits', {
        params: { path: { code: account, walletCode } },
        body: { amount: credit.trim(), reference: reference.trim() || null },
      }),
    ).then((w) => {
      setMessage(`Credited ${walletCode} with ${credit.trim()} ${w.currency}: ${amount(w.available)} available.`)
      setCredit('')
      setReference('')
      load(account)
    }, setError)
  }
  const createWallet = (event: SyntheticEvent) => {
    event.preventDefault()
    setError(undefined)
    setMessage(undefined)
    const code = newWallet.trim()
    ok(
      api.POST('/api/v1/userAccounts/{code}/wallets', {
        params: { path: { code: account } },
        body: { code, walletType: 'PREPAID' },
      }),
    ).then((w) => {
      setMessage(`Created the prepaid wallet ${w.code} in ${w.currency}.`)
      setNewWallet('')
      setWalletCode(w.code)
      load(account)
    }, setError)
  }

  return (
    <div className="screen prepaid">
      <h1>Prepaid</h1>
      <div className="toolbar">
        <label>
          User account
          <select value={account} onChange={(e) => setAccount(e.target.value)}>
            <option value="">Choose a user account…</option>
            {accounts.map((a) => (
              <option key={a.code} value={a.code}>
                {a.code}
                {a.description ? ` · ${a.description}` : ''}
              </option>
            ))}
          </select>
        </label>
        {account && (
          <button type="button" onClick={() => load(account)}>
            Refresh
          </button>
        )}
      </div>
      <Notice message={message} />
      <ErrorMessage error={error} />
      {wallets && (
        <section aria-label="Wallets">
          <h2>Wallets of {account}</h2>
          <div className="table-scroll">
            <table className="list stack">
              <thead>
                <tr>
                  <th>Wallet</th>
                  <th>Type</th>
                  <th>Currency</th>
                  <th className="number">Balance</th>
                  <th className="number">Reserved</th>
                  <th className="number">Available</th>
                </tr>
              </thead>
              <tbody>
                {wallets.map((w) => (
                  <tr key={w.code}>
                    <td className="code">{w.code}</td>
                    <td data-label="Type">{w.walletType}</td>
                    <td data-label="Currency">{w.currency}</td>
                    <td data-label="Balance" className="number">
                      {amount(w.balance)}
                    </td>
                    <td data-label="Reserved" className="number">
                      {amount(w.reserved)}
                    </td>
                    <td data-label="Available" className="number">
                      <strong>{amount(w.available)}</strong>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="side-by-side">
            {prepaid.length > 0 && (
              <form aria-label="Credit a wallet" onSubmit={submitCredit}>
                <h3>Credit a prepaid wallet</h3>
                <div className="toolbar">
                  <label>
                    Wallet to credit
                    <select value={walletCode} onChange={(e) => setWalletCode(e.target.value)}>
                      {prepaid.map((w) => (
                        <option key={w.code} value={w.code}>
                          {w.code} ({w.currency})
                        </option>
                      ))}
                    </select>
                  </label>
                  <label>
                    Amount
                    <input inputMode="decimal" value={credit} onChange={(e) => setCredit(e.target.value)} required />
                  </label>
                  <label>
                    Reference (optional)
                    <input value={reference} onChange={(e) => setReference(e.target.value)} maxLength={255} />
                  </label>
                  <button type="submit" className="primary">
                    Credit
                  </button>
                </div>
              </form>
            )}
            <form aria-label="New prepaid wallet" onSubmit={createWallet}>
              <h3>New prepaid wallet</h3>
              <div className="toolbar">
                <label>
                  Wallet code
                  <input value={newWallet} onChange={(e) => setNewWallet(e.target.value)} required maxLength={255} />
                </label>
                <button type="submit">Create wallet</button>
              </div>
            </form>
          </div>
        </section>
      )}
      {reservations && (
        <section aria-label="Open reservations">
          <h2>Open reservations</h2>
          {reservations.length === 0 ? (
            <p className="muted">No open reservation.</p>
          ) : (
            <div className="table-scroll">
              <table className="list stack">
                <thead>
                  <tr>
                    <th>Reservation</th>
                    <th>Type</th>
                    <th>Wallet</th>
                    <th>Subscription or offer</th>
                    <th className="number">Quantity</th>
                    <th className="number">Held, with tax</th>
                    <th>Reserved</th>
                    <th>Expires</th>
                  </tr>
                </thead>
                <tbody>
                  {reservations.map((r) => (
                    <tr key={r.id}>
                      <td className="code" data-label="Reservation">
                        {r.id}
                      </td>
                      <td data-label="Type">{r.type}</td>
                      <td data-label="Wallet">{r.wallet?.code ?? '—'}</td>
                      <td data-label="For">{r.subscription?.code ?? r.offer?.code ?? '—'}</td>
                      <td data-label="Quantity" className="number">
                        {amount(r.quantity)}
                      </td>
                      <td data-label="Held, with tax" className="number">
                        {amount(r.amountWithTax)}
                      </td>
                      <td data-label="Reserved">{when(r.reservationDate)}</td>
                      <td data-label="Expires">{when(r.expiryDate)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </div>
  )
}
