import { useCallback, useEffect, useState } from 'react'
import {
  isOfferStatus,
  nextOfferStatuses,
  PORTAL_STATUS,
  type OfferStatus,
} from '../../../src/modules/catalog/offer-status.model.ts'
import { api, ok, type Got } from '../client.ts'
import { ErrorMessage, Notice } from '../components.tsx'
import { Pricing } from './Pricing.tsx'

type Offer = Got<'/api/v1/offerTemplates'>['data'][number]

/** A status as the portal says it, with the backend status after it: "ready (ACTIVE)". */
const statusWords = (status: OfferStatus) => `${PORTAL_STATUS[status]} (${status})`

/**
 * Offers with their status in portal words and a button for each move the transition table allows (the same table
 * the API applies, imported from the catalog module), so no button leads to a refusal.
 */
function Offers() {
  const [offers, setOffers] = useState<Offer[]>()
  const [error, setError] = useState<unknown>()
  const [message, setMessage] = useState<string>()
  const load = useCallback(
    () =>
      ok(api.GET('/api/v1/offerTemplates', { params: { query: { limit: 1000, sortBy: 'code' } } })).then(
        (page) => setOffers(page.data),
        setError,
      ),
    [],
  )
  useEffect(() => void load(), [load])

  const move = (code: string, to: OfferStatus) => {
    setError(undefined)
    setMessage(undefined)
    ok(api.PUT('/v1/catalog/offers/{code}', { params: { path: { code } }, body: { status: to } })).then(() => {
      setMessage(`${code} is now ${statusWords(to)}.`)
      void load()
    }, setError)
  }

  return (
    <section aria-label="Offers">
      <h2>Offers</h2>
      <Notice message={message} />
      <ErrorMessage error={error} />
      {offers && (
        <div className="table-scroll">
          <table className="list stack">
            <thead>
              <tr>
                <th>Code</th>
                <th>Name</th>
                <th>Status</th>
                <th>Allowed moves</th>
              </tr>
            </thead>
            <tbody>
              {offers.map((o) => {
                const status = o.lifeCycleStatus
                const known = isOfferStatus(status)
                return (
                  <tr key={o.code}>
                    <td className="code">{o.code}</td>
                    <td data-label="Name">{o.name}</td>
                    <td data-label="Status">
                      <span className={`status status-${known ? PORTAL_STATUS[status] : 'other'}`}>
                        {known ? statusWords(status) : status}
                      </span>
                    </td>
                    <td className="actions moves">
                      {known &&
                        nextOfferStatuses(status).map((to) => (
                          <button
                            key={to}
                            type="button"
                            onClick={() => move(o.code, to)}
                            aria-label={`Move ${o.code} to ${statusWords(to)}`}
                          >
                            → {statusWords(to)}
                          </button>
                        ))}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

/** The catalog: charges with their pricing versions, and offers with their life cycle. */
export function Catalog() {
  return (
    <div className="screen catalog">
      <h1>Catalog</h1>
      <Pricing />
      <Offers />
    </div>
  )
}
