import { useEffect, useMemo, useState } from 'react'
import {
  attribute,
  billingAccounts,
  customerAccounts,
  customers,
  offerTemplates,
  previewOrder,
  productVersions,
  userAccounts,
  type Amount,
  type Attribute,
  type Listed,
  type OrderInput,
  type Preview,
} from '../api.ts'
import { api, ok } from '../client.ts'
import { ErrorMessage, Notice } from '../components.tsx'

interface Parties {
  billing: Listed[]
  users: Listed[]
  customerAccounts: Listed[]
  customers: Listed[]
  offers: Listed[]
}
interface ProductForm {
  code: string
  quantity: string
  range: string
  attributes: Attribute[]
  values: Record<string, string>
  /** Discount plans linked to the product, and those picked. */
  plans: string[]
  picked: string[]
}
/** A plan applies only ACTIVE or IN_USE (the API refuses the others): only those are offered. */
const USABLE = new Set(['ACTIVE', 'IN_USE'])
type Plans = Map<string, { description: string | null; automatic: boolean }>

/** Checkboxes of the usable plans among `codes`; an automatic plan applies without being picked. */
function PlanPicker({
  legend,
  codes,
  plans,
  picked,
  onChange,
}: {
  legend: string
  codes: string[]
  plans: Plans
  picked: string[]
  onChange: (picked: string[]) => void
}) {
  const usable = codes.filter((c) => plans.has(c))
  if (usable.length === 0) return null
  return (
    <fieldset className="plans">
      <legend>{legend}</legend>
      {usable.map((code) => {
        const plan = plans.get(code)!
        return (
          <label key={code} className="check plain">
            <input
              type="checkbox"
              checked={picked.includes(code)}
              disabled={plan.automatic}
              onChange={(e) => onChange(e.target.checked ? [...picked, code] : picked.filter((c) => c !== code))}
            />
            {plan.description ?? code}
            {plan.automatic && <span className="hint"> (applied automatically)</span>}
          </label>
        )
      })}
    </fieldset>
  )
}

const components = (offer: Listed | undefined) =>
  (
    (offer?.offerComponents as
      | { productCode: string; defaultQuantity?: number; minQuantity?: number | null; maxQuantity?: number | null }[]
      | undefined) ?? []
  ).map((c) => ({
    code: c.productCode,
    quantity: String(c.defaultQuantity ?? 1),
    range:
      c.minQuantity != null || c.maxQuantity != null ? `${c.minQuantity ?? 0} to ${c.maxQuantity ?? 'any number'}` : '',
  }))

/** The attributes of a product's latest published version, with their allowed values. */
async function attributesOf(productCode: string): Promise<Attribute[]> {
  const versions = await productVersions(productCode)
  const published = versions.filter((v) => v.status === 'PUBLISHED').sort((a, b) => b.version - a.version)[0]
  return Promise.all((published?.attributes ?? []).map(attribute))
}

/** What the screen reads of a placed order (the answer's schema is open). */
interface Placed {
  code: string
  status: string
  orderOffers?: { subscription?: { code: string; status: string } }[]
}

/**
 * Places the order the preview shows, validated at once or kept as a draft; the button waits for the next change of
 * the form once the order is placed, so one click places one order.
 */
function PlaceOrder({ order }: { order: OrderInput }) {
  const [validate, setValidate] = useState(true)
  const [placed, setPlaced] = useState<{ for: OrderInput; message: string }>()
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  const done = placed?.for === order

  const place = () => {
    setBusy(true)
    setError(undefined)
    ok(api.POST('/api/v1/orders', { params: { query: { autoValidate: validate } }, body: order }))
      .then((answer) => {
        const o = answer as unknown as Placed
        const subscriptions = (o.orderOffers ?? [])
          .flatMap((x) => (x.subscription ? [`${x.subscription.code} (${x.subscription.status})`] : []))
          .join(', ')
        setPlaced({
          for: order,
          message: `Order ${o.code} placed: ${o.status}${subscriptions ? `; subscription ${subscriptions}` : ''}.`,
        })
      }, setError)
      .finally(() => setBusy(false))
  }

  return (
    <section className="place-order" aria-label="Place the order">
      <label className="check plain">
        <input type="checkbox" checked={validate} onChange={(e) => setValidate(e.target.checked)} />
        Validate at once (subscriptions active, one-shot charges billed); otherwise a draft order
      </label>
      <button type="button" className="primary" onClick={place} disabled={busy || done}>
        {busy ? 'Placing…' : 'Place the order'}
      </button>
      {done && <Notice message={placed.message} />}
      <ErrorMessage error={error} />
    </section>
  )
}

const shown = (amount: Amount | null | undefined) => (amount === null || amount === undefined ? '—' : String(amount))

/** An order as it would be rated: the form on the left, the API's preview (lines and totals) beside it. */
export function OrderPreview() {
  const [parties, setParties] = useState<Parties>()
  const [error, setError] = useState<unknown>()
  const [billingCode, setBillingCode] = useState('')
  const [userCode, setUserCode] = useState('')
  const [offerCode, setOfferCode] = useState('')
  const [products, setProducts] = useState<ProductForm[]>([])
  const [preview, setPreview] = useState<Preview>()
  const [plans, setPlans] = useState<Plans>(new Map())
  const [offerPlans, setOfferPlans] = useState<string[]>([])

  useEffect(() => {
    Promise.all([billingAccounts(), userAccounts(), customerAccounts(), customers(), offerTemplates()]).then(
      ([billing, users, cas, custs, offers]) =>
        setParties({ billing, users, customerAccounts: cas, customers: custs, offers }),
      setError,
    )
    ok(api.GET('/api/v1/discountPlans', { params: { query: { limit: 1000, sortBy: 'code' } } })).then(
      (page) =>
        setPlans(
          new Map(
            page.data
              .filter((p) => USABLE.has(p.status))
              .map((p) => [p.code, { description: p.description, automatic: p.automaticApplication }]),
          ),
        ),
      setError,
    )
  }, [])

  const usersOfBilling = useMemo(
    () => parties?.users.filter((u) => u.billingAccount === billingCode) ?? [],
    [parties, billingCode],
  )
  const sellerCode = useMemo(() => {
    const ba = parties?.billing.find((b) => b.code === billingCode)
    const ca = parties?.customerAccounts.find((c) => c.code === ba?.customerAccount)
    return (parties?.customers.find((c) => c.code === ca?.customer)?.seller as string | undefined) ?? ''
  }, [parties, billingCode])

  const chooseBilling = (code: string) => {
    setBillingCode(code)
    setUserCode(parties?.users.find((u) => u.billingAccount === code)?.code ?? '')
  }
  const chooseOffer = (code: string) => {
    setOfferCode(code)
    const offer = parties?.offers.find((o) => o.code === code)
    const chosen = components(offer)
    setOfferPlans([])
    setProducts(chosen.map((p) => ({ ...p, attributes: [], values: {}, plans: [], picked: [] })))
    const linked = (code: string) =>
      ok(api.GET('/api/v1/products/{code}/discountPlans', { params: { path: { code } } })).then((l) => l.discountPlans)
    Promise.all(chosen.map((p) => Promise.all([attributesOf(p.code), linked(p.code)]))).then(
      (lists) =>
        setProducts(
          chosen.map((p, i) => ({ ...p, attributes: lists[i]![0], values: {}, plans: lists[i]![1], picked: [] })),
        ),
      setError,
    )
  }
  const changeProduct = (index: number, change: Partial<ProductForm>) =>
    setProducts((list) => list.map((p, i) => (i === index ? { ...p, ...change } : p)))

  const order: OrderInput | undefined = useMemo(() => {
    if (!billingCode || !userCode || !offerCode || !sellerCode || products.length === 0) return undefined
    // Previewed once every attribute of the products has a value: before, the API can only refuse the order (a
    // price matrix matches no row without them), and the form would ask for a refusal at each step of filling it in.
    if (products.some((p) => p.attributes.some((a) => (p.values[a.code] ?? '') === ''))) return undefined
    return {
      sellerCode,
      billingAccountCode: billingCode,
      userAccountCode: userCode,
      orderOffers: [
        {
          offerTemplateCode: offerCode,
          ...(offerPlans.length > 0 ? { discountPlanCodes: offerPlans } : {}),
          orderProducts: products.map((p) => ({
            productCode: p.code,
            quantity: p.quantity,
            ...(p.picked.length > 0 ? { discountPlanCodes: p.picked } : {}),
            orderAttributes: Object.entries(p.values)
              .filter(([, v]) => v !== '')
              .map(([attributeCode, value]) => {
                const kind = p.attributes.find((a) => a.code === attributeCode)?.attributeType ?? ''
                return /NUMERIC|INTEGER|DOUBLE/.test(kind)
                  ? { attributeCode, doubleValue: value }
                  : { attributeCode, stringValue: value }
              }),
          })),
        },
      ],
    }
  }, [billingCode, userCode, offerCode, sellerCode, products, offerPlans])

  // The preview follows the form: asked again a moment after the last change.
  useEffect(() => {
    if (!order) return setPreview(undefined)
    const timer = setTimeout(() => {
      setError(undefined)
      previewOrder(order).then(setPreview, (e: unknown) => {
        setPreview(undefined)
        setError(e)
      })
    }, 250)
    return () => clearTimeout(timer)
  }, [order])

  if (!parties)
    return (
      <div className="screen">
        <h1>Order preview</h1>
        <ErrorMessage error={error} />
        {!error && <p>Loading accounts and offers…</p>}
      </div>
    )

  return (
    <div className="screen">
      <h1>Order preview</h1>
      <div className="columns">
        <form className="order-form" aria-label="Order" onSubmit={(e) => e.preventDefault()}>
          <label>
            Billing account
            <select value={billingCode} onChange={(e) => chooseBilling(e.target.value)}>
              <option value="">Choose…</option>
              {parties.billing.map((b) => (
                <option key={b.code} value={b.code}>
                  {b.code} · {b.name ?? b.description}
                </option>
              ))}
            </select>
          </label>
          <label>
            User account
            <select value={userCode} onChange={(e) => setUserCode(e.target.value)} disabled={!billingCode}>
              <option value="">Choose…</option>
              {usersOfBilling.map((u) => (
                <option key={u.code} value={u.code}>
                  {u.code}
                </option>
              ))}
            </select>
          </label>
          {sellerCode && <p className="muted">Seller {sellerCode}</p>}
          <label>
            Offer
            <select value={offerCode} onChange={(e) => chooseOffer(e.target.value)}>
              <option value="">Choose…</option>
              {parties.offers.map((o) => (
                <option key={o.code} value={o.code}>
                  {o.code} · {o.name ?? o.description}
                </option>
              ))}
            </select>
          </label>
          <PlanPicker
            legend="Offer discount plans"
            codes={(parties.offers.find((o) => o.code === offerCode)?.discountPlans as string[] | undefined) ?? []}
            plans={plans}
            picked={offerPlans}
            onChange={setOfferPlans}
          />
          {products.map((p, index) => (
            <fieldset key={p.code}>
              <legend>Product {p.code}</legend>
              <label>
                <span>Quantity{p.range && <span className="hint"> ({p.range})</span>}</span>
                <input
                  inputMode="decimal"
                  value={p.quantity}
                  onChange={(e) => changeProduct(index, { quantity: e.target.value })}
                />
              </label>
              {p.attributes.map((a) => (
                <label key={a.code}>
                  {a.description ?? a.code}
                  {a.allowedValues && a.allowedValues.length > 0 ? (
                    <select
                      value={p.values[a.code] ?? ''}
                      onChange={(e) => changeProduct(index, { values: { ...p.values, [a.code]: e.target.value } })}
                    >
                      <option value="">(none)</option>
                      {a.allowedValues.map((v) => (
                        <option key={v}>{v}</option>
                      ))}
                    </select>
                  ) : (
                    <input
                      value={p.values[a.code] ?? ''}
                      onChange={(e) => changeProduct(index, { values: { ...p.values, [a.code]: e.target.value } })}
                    />
                  )}
                </label>
              ))}
              <PlanPicker
                legend={`Discount plans of ${p.code}`}
                codes={p.plans}
                plans={plans}
                picked={p.picked}
                onChange={(picked) => changeProduct(index, { picked })}
              />
            </fieldset>
          ))}
        </form>
        <section className="preview" aria-label="Rated lines" aria-live="polite">
          <ErrorMessage error={error} />
          {!preview && !error && (
            <p className="muted">Choose a billing account, an offer and its attribute values to see the rated lines.</p>
          )}
          {preview?.offers.map((o) => (
            <div key={o.offerCode}>
              <h2>
                {o.offerCode} <span className="muted">({preview.currency})</span>
              </h2>
              <div className="table-scroll">
                <table className="list">
                  <thead>
                    <tr>
                      <th>Charge</th>
                      <th>Type</th>
                      <th className="number">Without tax</th>
                      <th className="number">With tax</th>
                    </tr>
                  </thead>
                  <tbody>
                    {o.lines.map((l, i) => (
                      <tr key={i} className={l.discountPlanCode ? 'discount' : undefined}>
                        <td>
                          {l.label || l.chargeCode}
                          {l.discountPlanCode && <span className="hint"> · discount {l.discountPlanCode}</span>}
                        </td>
                        <td>{l.chargeType}</td>
                        <td className="number">{shown(l.amountWithoutTax)}</td>
                        <td className="number">{shown(l.amountWithTax)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {o.totalWithTax === undefined ? (
                <p className="muted">
                  No totals: a line of this offer is priced when it is used (usage), so the API gives none.
                </p>
              ) : (
                <dl className="totals" data-testid="totals">
                  <dt>One-time</dt>
                  <dd>{shown(o.totalOneTime)}</dd>
                  <dt>Recurring</dt>
                  <dd>{shown(o.totalRecurring)}</dd>
                  <dt>Tax</dt>
                  <dd>{shown(o.totalTax)}</dd>
                  <dt>Total with tax</dt>
                  <dd>{shown(o.totalWithTax)}</dd>
                </dl>
              )}
            </div>
          ))}
          {preview && order && <PlaceOrder order={order} />}
        </section>
      </div>
    </div>
  )
}
