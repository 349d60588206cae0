import { useCallback, useEffect, useRef, useState } from 'react'
import type { paths } from '../../../clients/typescript/src/index.ts'
import { api, ok, type Got } from '../client.ts'
import { ErrorMessage, Notice } from '../components.tsx'

type Version = Got<'/api/v1/charges/{code}/pricing'>['pricingVersions'][number]
type DraftBody = NonNullable<
  paths['/api/v1/charges/{code}/pricing/draft']['put']['requestBody']
>['content']['application/json']
type Model = DraftBody['pricingModel']
type ColumnType = NonNullable<DraftBody['columns']>[number]['type']
type Charge = Got<'/api/v1/charges'>['data'][number]
type Attribute = Got<'/api/v1/attributes'>['data'][number]

/** The matrix column types the API accepts (the draft schema's enum: the compiler holds this list to it). */
const COLUMN_TYPES: ColumnType[] = ['String', 'Long', 'Double', 'Boolean', 'Range_Numeric', 'Range_Date']
const isRange = (type: ColumnType) => type.startsWith('Range_')

interface ColumnForm {
  id: number
  code: string
  attributeCode: string
  type: ColumnType
}
interface CellForm {
  value: string
  from: string
  to: string
}
interface RowForm {
  id: number
  priority: string
  price: string
  description: string
  cells: Record<number, CellForm>
}
interface DraftForm {
  model: Model
  currency: string
  validFrom: string
  price: string
  formula: string
  columns: ColumnForm[]
  rows: RowForm[]
}

let nextId = 1
const newId = () => nextId++
const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : ''
const emptyCell = (): CellForm => ({ value: '', from: '', to: '' })

/** Today in the browser's calendar, yyyy-MM-dd: the first day a new version may start. */
function today(): string {
  const d = new Date()
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

/** A form holding a version's content: the draft itself, or a published version copied into a new draft. */
function formOf(version: Version, validFrom: string): DraftForm {
  const columns: ColumnForm[] = (version.columns ?? []).map((c) => ({
    id: newId(),
    code: c.code,
    attributeCode: c.attributeCode,
    type: c.type,
  }))
  const rows: RowForm[] = (version.rows ?? []).map((r) => {
    const cells: Record<number, CellForm> = {}
    for (const column of columns) {
      const v = r.values.find((x) => x.dimensionCode === column.code)
      cells[column.id] = { value: text(v?.stringValue), from: text(v?.fromValue), to: text(v?.toValue) }
    }
    return { id: newId(), priority: text(r.priority), price: text(r.price), description: text(r.description), cells }
  })
  return {
    model: version.pricingModel,
    currency: version.currency,
    validFrom,
    price: text(version.price),
    formula: version.price_fx ?? '',
    columns,
    rows,
  }
}

/** The draft as the API reads it: only the fields of its model; amounts sent as the text typed, never as floats. */
function bodyOf(form: DraftForm): DraftBody {
  const base = { pricingModel: form.model, currency: form.currency, validFrom: form.validFrom || null }
  if (form.model === 'FLAT') return { ...base, price: form.price }
  if (form.model === 'FORMULA') return { ...base, price_fx: form.formula }
  return {
    ...base,
    columns: form.columns.map((c, position) => ({
      code: c.code,
      attributeCode: c.attributeCode,
      type: c.type,
      position,
    })),
    rows: form.rows.map((r) => ({
      price: r.price,
      ...(r.priority.trim() === '' ? {} : { priority: Number(r.priority) }),
      description: r.description || null,
      values: form.columns.map((c) => {
        const cell = r.cells[c.id] ?? emptyCell()
        return isRange(c.type)
          ? { dimensionCode: c.code, fromValue: cell.from || null, toValue: cell.to || null }
          : { dimensionCode: c.code, stringValue: cell.value }
      }),
    })),
  }
}

/** A version's place on the timeline: a published version with an end is closed from that day. */
function phase(v: Version): { word: string; className: string } {
  if (v.status === 'DRAFT') return { word: 'Draft', className: 'draft' }
  if (v.validTo) return { word: 'Closed', className: 'closed' }
  return { word: 'Published', className: 'published' }
}

function Timeline({ versions }: { versions: Version[] }) {
  if (versions.length === 0) return <p className="muted">No pricing version yet.</p>
  const ordered = [...versions].sort((a, b) => a.version - b.version)
  return (
    <ol className="timeline" aria-label="Pricing versions">
      {ordered.map((v) => {
        const { word, className } = phase(v)
        return (
          <li key={v.version} className={className}>
            <span className="badge">{word}</span>
            <strong>Version {v.version}</strong> · {v.pricingModel} · {v.currency}
            <span className="dates">
              {v.validFrom ?? 'from the start'} → {v.validTo ?? 'open-ended'}
            </span>
            {v.pricingModel === 'FLAT' && <span className="muted"> · price {text(v.price)}</span>}
            {v.pricingModel === 'FORMULA' && <code className="muted"> {v.price_fx}</code>}
            {v.pricingModel === 'MATRIX' && <span className="muted"> · {(v.rows ?? []).length} rows</span>}
          </li>
        )
      })}
    </ol>
  )
}

function MatrixEditor({
  form,
  attributes,
  change,
}: {
  form: DraftForm
  attributes: Attribute[]
  change: (f: (form: DraftForm) => DraftForm) => void
}) {
  const setColumn = (id: number, patch: Partial<ColumnForm>) =>
    change((f) => ({ ...f, columns: f.columns.map((c) => (c.id === id ? { ...c, ...patch } : c)) }))
  const setRow = (id: number, patch: Partial<RowForm>) =>
    change((f) => ({ ...f, rows: f.rows.map((r) => (r.id === id ? { ...r, ...patch } : r)) }))
  const setCell = (row: RowForm, column: number, patch: Partial<CellForm>) =>
    setRow(row.id, { cells: { ...row.cells, [column]: { ...(row.cells[column] ?? emptyCell()), ...patch } } })
  const allowed = (c: ColumnForm) => attributes.find((a) => a.code === c.attributeCode)?.allowedValues ?? []
  const columnName = (c: ColumnForm, i: number) => c.code || `column ${i + 1}`

  return (
    <>
      <fieldset>
        <legend>Matrix columns</legend>
        {form.columns.map((c, i) => (
          <div className="toolbar matrix-column" key={c.id}>
            <label>
              Column {i + 1} code
              <input value={c.code} onChange={(e) => setColumn(c.id, { code: e.target.value })} />
            </label>
            <label>
              Column {i + 1} attribute
              <select value={c.attributeCode} onChange={(e) => setColumn(c.id, { attributeCode: e.target.value })}>
                <option value="">Choose…</option>
                {attributes.map((a) => (
                  <option key={a.code} value={a.code}>
                    {a.code} · {a.description}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Column {i + 1} type
              <select value={c.type} onChange={(e) => setColumn(c.id, { type: e.target.value as ColumnType })}>
                {COLUMN_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </label>
            <button
              type="button"
              onClick={() => change((f) => ({ ...f, columns: f.columns.filter((x) => x.id !== c.id) }))}
            >
              Remove column {i + 1}
            </button>
          </div>
        ))}
        <div>
          <button
            type="button"
            onClick={() =>
              change((f) => ({
                ...f,
                columns: [...f.columns, { id: newId(), code: '', attributeCode: '', type: 'String' }],
              }))
            }
          >
            Add a column
          </button>
        </div>
      </fieldset>
      <fieldset>
        <legend>
          Matrix rows (the first matching row by priority prices the unit; an empty cell matches any value)
        </legend>
        <div className="table-scroll">
          <table className="matrix">
            <thead>
              <tr>
                <th>Priority</th>
                {form.columns.map((c, i) => (
                  <th key={c.id}>
                    {columnName(c, i)}
                    {isRange(c.type) && <span className="muted"> (from, to)</span>}
                  </th>
                ))}
                <th>Price</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {form.rows.map((r, ri) => (
                <tr key={r.id}>
                  <td>
                    <input
                      className="narrow"
                      inputMode="numeric"
                      aria-label={`Row ${ri + 1} priority`}
                      value={r.priority}
                      onChange={(e) => setRow(r.id, { priority: e.target.value })}
                    />
                  </td>
                  {form.columns.map((c, ci) => {
                    const cell = r.cells[c.id] ?? emptyCell()
                    const name = `Row ${ri + 1} ${columnName(c, ci)}`
                    if (isRange(c.type))
                      return (
                        <td key={c.id} className="range">
                          <input
                            aria-label={`${name} from`}
                            placeholder="from"
                            value={cell.from}
                            onChange={(e) => setCell(r, c.id, { from: e.target.value })}
                          />
                          <input
                            aria-label={`${name} to`}
                            placeholder="to"
                            value={cell.to}
                            onChange={(e) => setCell(r, c.id, { to: e.target.value })}
                          />
                        </td>
                      )
                    const values = allowed(c)
                    return (
                      <td key={c.id}>
                        {values.length > 0 ? (
                          <select
                            aria-label={name}
                            value={cell.value}
                            onChange={(e) => setCell(r, c.id, { value: e.target.value })}
                          >
                            <option value="">(any)</option>
                            {values.map((v) => (
                              <option key={v}>{v}</option>
                            ))}
                          </select>
                        ) : (
                          <input
                            aria-label={name}
                            value={cell.value}
                            onChange={(e) => setCell(r, c.id, { value: e.target.value })}
                          />
                        )}
                      </td>
                    )
                  })}
                  <td>
                    <input
                      className="price"
                      inputMode="decimal"
                      aria-label={`Row ${ri + 1} price`}
                      value={r.price}
                      onChange={(e) => setRow(r.id, { price: e.target.value })}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      aria-label={`Remove row ${ri + 1}`}
                      onClick={() => change((f) => ({ ...f, rows: f.rows.filter((x) => x.id !== r.id) }))}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div>
          <button
            type="button"
            onClick={() =>
              change((f) => ({
                ...f,
                rows: [
                  ...f.rows,
                  { id: newId(), priority: String(f.rows.length), price: '', description: '', cells: {} },
                ],
              }))
            }
          >
            Add a row
          </button>
        </div>
      </fieldset>
    </>
  )
}

type FormulaCheck = { state: 'checking' } | { state: 'valid' } | { state: 'invalid'; error: unknown }

/** One charge's pricing: its versions on a timeline, the draft's editor, and publishing with a confirmation. */
function ChargePricing({
  charge,
  attributes,
  currencies,
}: {
  charge: Charge
  attributes: Attribute[]
  currencies: string[]
}) {
  const [versions, setVersions] = useState<Version[]>()
  const [form, setForm] = useState<DraftForm>()
  const [error, setError] = useState<unknown>()
  const [message, setMessage] = useState<string>()
  const [confirming, setConfirming] = useState(false)
  const [formulaCheck, setFormulaCheck] = useState<FormulaCheck>()
  const confirmButton = useRef<HTMLButtonElement>(null)
  const code = charge.code
  const path = { params: { path: { code } } }

  const load = useCallback(
    () =>
      ok(api.GET('/api/v1/charges/{code}/pricing', { params: { path: { code } } })).then((answer) => {
        const list = answer.pricingVersions
        setVersions(list)
        const draft = list.find((v) => v.status === 'DRAFT')
        setForm(draft ? formOf(draft, draft.validFrom ?? today()) : undefined)
      }, setError),
    [code],
  )
  useEffect(() => {
    setMessage(undefined)
    setError(undefined)
    setConfirming(false)
    void load()
  }, [load])
  useEffect(() => {
    if (confirming) confirmButton.current?.focus()
  }, [confirming])

  const draft = versions?.find((v) => v.status === 'DRAFT')
  const latest = versions?.filter((v) => v.status === 'PUBLISHED').sort((a, b) => b.version - a.version)[0]
  const change = (f: (form: DraftForm) => DraftForm) => setForm((current) => (current ? f(current) : current))

  // A formula is checked by the API as it is typed: the draft is saved a moment after the last key, and the answer
  // (accepted, or the parse error with its position) shows under the field.
  const formula = form?.model === 'FORMULA' ? form.formula : undefined
  const formRef = useRef(form)
  formRef.current = form
  useEffect(() => {
    if (formula === undefined || formula.trim() === '') return setFormulaCheck(undefined)
    setFormulaCheck({ state: 'checking' })
    const timer = setTimeout(() => {
      const current = formRef.current
      if (!current) return
      ok(api.PUT('/api/v1/charges/{code}/pricing/draft', { ...path, body: bodyOf(current) })).then(
        (answer) => {
          setVersions(answer.pricingVersions)
          setFormulaCheck({ state: 'valid' })
        },
        (e: unknown) => setFormulaCheck({ state: 'invalid', error: e }),
      )
    }, 600)
    return () => clearTimeout(timer)
    // Only the formula's text starts a check; the rest of the form is read when it runs.
  }, [formula, code])

  const save = () => {
    if (!form) return
    setError(undefined)
    setMessage(undefined)
    ok(api.PUT('/api/v1/charges/{code}/pricing/draft', { ...path, body: bodyOf(form) })).then((answer) => {
      setVersions(answer.pricingVersions)
      setMessage('Draft saved.')
    }, setError)
  }
  const discard = () => {
    setError(undefined)
    ok(api.DELETE('/api/v1/charges/{code}/pricing/draft', path)).then(() => {
      setMessage('Draft discarded.')
      void load()
    }, setError)
  }
  const publish = () => {
    if (!form) return
    setError(undefined)
    setConfirming(false)
    // The draft as shown is saved first, so what is published is what the person confirmed.
    ok(api.PUT('/api/v1/charges/{code}/pricing/draft', { ...path, body: bodyOf(form) }))
      .then(() => ok(api.POST('/api/v1/charges/{code}/pricing/publish', { ...path, body: {} })))
      .then((answer) => {
        setMessage(`Published version ${answer.version} from ${answer.validFrom ?? 'the start'}.`)
        return load()
      }, setError)
  }

  return (
    <section className="charge-pricing" aria-label={`Pricing of ${code}`}>
      <h2>
        {code}{' '}
        <span className="muted">
          · {charge.description} · {charge.type}
        </span>
      </h2>
      {versions && <Timeline versions={versions} />}
      <Notice message={message} />
      <ErrorMessage error={error} />
      {versions && !form && (
        <div className="toolbar">
          <button
            type="button"
            className="primary"
            onClick={() =>
              setForm(
                latest
                  ? formOf(latest, today())
                  : {
                      model: 'FLAT',
                      currency: currencies[0] ?? 'EUR',
                      validFrom: today(),
                      price: '',
                      formula: '',
                      columns: [],
                      rows: [],
                    },
              )
            }
          >
            {latest ? `New draft from version ${latest.version}` : 'New draft'}
          </button>
        </div>
      )}
      {form && (
        <form className="draft" aria-label="Draft pricing version" onSubmit={(e) => e.preventDefault()}>
          <h3>{draft ? `Draft version ${draft.version}` : 'New draft (not saved yet)'}</h3>
          <div className="toolbar">
            <label>
              Pricing model
              <select value={form.model} onChange={(e) => change((f) => ({ ...f, model: e.target.value as Model }))}>
                <option value="FLAT">FLAT: one unit price</option>
                <option value="MATRIX">MATRIX: a price per attribute values</option>
                <option value="FORMULA">FORMULA: a price computed per order</option>
              </select>
            </label>
            <label>
              Currency
              <select value={form.currency} onChange={(e) => change((f) => ({ ...f, currency: e.target.value }))}>
                {[...new Set([form.currency, ...currencies])].map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </label>
            <label>
              Valid from
              <input
                type="date"
                value={form.validFrom}
                onChange={(e) => change((f) => ({ ...f, validFrom: e.target.value }))}
              />
            </label>
          </div>
          {form.model === 'FLAT' && (
            <label className="price-field">
              Unit price ({form.currency})
              <input
                inputMode="decimal"
                value={form.price}
                onChange={(e) => change((f) => ({ ...f, price: e.target.value }))}
              />
            </label>
          )}
          {form.model === 'FORMULA' && (
            <label>
              Price formula
              <textarea
                rows={3}
                spellCheck={false}
                value={form.formula}
                onChange={(e) => change((f) => ({ ...f, formula: e.target.value }))}
                aria-describedby="formula-check"
              />
              <span id="formula-check" className="hint" aria-live="polite">
                {formulaCheck?.state === 'checking' && 'Checking…'}
                {formulaCheck?.state === 'valid' && (
                  <span className="valid">The API accepts this formula (draft saved).</span>
                )}
                {!formulaCheck && 'For example #{quantity > 100 ? 0.5 : 1}: the API checks it as you type.'}
              </span>
              {formulaCheck?.state === 'invalid' && <ErrorMessage error={formulaCheck.error} />}
            </label>
          )}
          {form.model === 'MATRIX' && <MatrixEditor form={form} attributes={attributes} change={change} />}
          <div className="toolbar">
            <button type="button" onClick={save}>
              Save draft
            </button>
            <button type="button" className="primary" onClick={() => setConfirming(true)} disabled={confirming}>
              Publish…
            </button>
            {draft && (
              <button type="button" onClick={discard}>
                Discard draft
              </button>
            )}
          </div>
          {confirming && (
            <div className="confirm" role="alertdialog" aria-labelledby="publish-question">
              <p id="publish-question">
                Publish this {form.model} pricing of {code} from {form.validFrom || 'the start'}?
                {latest && ` Version ${latest.version} closes that day;`} orders rated from then use the new prices.
              </p>
              <div className="toolbar">
                <button type="button" className="primary" ref={confirmButton} onClick={publish}>
                  Publish now
                </button>
                <button type="button" onClick={() => setConfirming(false)}>
                  Keep the draft
                </button>
              </div>
            </div>
          )}
        </form>
      )}
    </section>
  )
}

/** Charges and their pricing versions: pick a charge, read its timeline, edit and publish its draft. */
export function Pricing() {
  const [charges, setCharges] = useState<Charge[]>([])
  const [attributes, setAttributes] = useState<Attribute[]>([])
  const [currencies, setCurrencies] = useState<string[]>([])
  const [chosen, setChosen] = useState('')
  const [error, setError] = useState<unknown>()

  useEffect(() => {
    Promise.all([
      ok(api.GET('/api/v1/charges', { params: { query: { limit: 1000, sortBy: 'code' } } })),
      ok(api.GET('/api/v1/attributes', { params: { query: { limit: 1000, sortBy: 'code' } } })),
      ok(api.GET('/api/v1/tradingCurrencies', { params: { query: { limit: 1000, sortBy: 'code' } } })),
    ]).then(([c, a, t]) => {
      setCharges(c.data)
      setAttributes(a.data)
      setCurrencies(t.data.map((x) => x.code))
    }, setError)
  }, [])
  const charge = charges.find((c) => c.code === chosen)

  return (
    <section aria-label="Charges and pricing">
      <h2>Charges and pricing</h2>
      <ErrorMessage error={error} />
      <div className="toolbar">
        <label>
          Charge
          <select value={chosen} onChange={(e) => setChosen(e.target.value)}>
            <option value="">Choose a charge…</option>
            {charges.map((c) => (
              <option key={c.code} value={c.code}>
                {c.code} · {c.description}
              </option>
            ))}
          </select>
        </label>
      </div>
      {charge && <ChargePricing key={charge.code} charge={charge} attributes={attributes} currencies={currencies} />}
    </section>
  )
}
