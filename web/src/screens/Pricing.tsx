import { useEffect, useRef, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import {
  ActionIcon,
  Button,
  Code,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core'
import type { paths } from '../../../clients/typescript/src/index.ts'
import { api, ok, type Got } from '../client.ts'
import { money } from '../format.ts'
import {
  FormError,
  StateBadge,
  fieldErrors,
  useCatalogList,
  useCatalogRefresh,
  useTenantToday,
  versionState,
  type Listed,
} from './catalog-shared.tsx'

type Version = Got<'/api/v1/charges/{code}/pricing'>['pricingVersions'][number]
type DraftBody = NonNullable<
  paths['/api/v1/charges/{code}/pricing/draft']['put']['requestBody']
>['content']['application/json']
type Model = DraftBody['pricingModel']
type ColumnType = NonNullable<DraftBody['columns']>[number]['type']
type Charge = Listed<'charges'>
type Attribute = Listed<'attributes'>

/** The matrix column types the API accepts (the draft schema's enum: the compiler holds this list to it). */
const COLUMN_TYPES: ColumnType[] = ['String', 'Long', 'Double', 'Boolean', 'Range_Numeric', 'Range_Date']
const isRange = (type: ColumnType) => type.startsWith('Range_')
const MODELS: { value: Model; label: string }[] = [
  { value: 'FLAT', label: 'One unit price' },
  { value: 'MATRIX', label: 'A price per attribute values (matrix)' },
  { value: 'FORMULA', label: 'A price computed by a formula' },
]
const MODEL_WORDS: Record<string, string> = { FLAT: 'Unit price', MATRIX: 'Price matrix', FORMULA: 'Formula' }

/** The fields of the draft form under which the API's problems are shown. */
const DRAFT_FIELDS =
  /^(price|price_fx|currency|validFrom|rows\[\d+\]\.(price|priority)|columns\[\d+\]\.(code|attributeCode))$/

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
  if (form.model === 'FLAT') return { ...base, price: form.price.trim() }
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
      price: r.price.trim(),
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

/** A stored matrix's rows as a table: one line per row, its values (empty = any) and its price in the currency. */
function MatrixRows({ version }: { version: Version }) {
  const columns = version.columns ?? []
  return (
    <Table.ScrollContainer minWidth={0} maw="100%">
      <Table striped withTableBorder fz="sm" aria-label={`Rows of version ${version.version}`}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.code}>{c.label}</Table.Th>
            ))}
            <Table.Th ta="right">Price</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(version.rows ?? []).map((r) => (
            <Table.Tr key={r.priority}>
              {columns.map((c) => {
                const cell = r.values.find((v) => v.dimensionCode === c.code)
                const shown = c.isRange
                  ? `${text(cell?.fromValue) || '…'} to ${text(cell?.toValue) || '…'}`
                  : text(cell?.stringValue)
                return <Table.Td key={c.code}>{shown || <Text c="dimmed">any</Text>}</Table.Td>
              })}
              <Table.Td ta="right" className="amount">
                {money(text(r.price), version.currency)}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}

/** The versions of a charge's pricing, newest first, each with its state said as it is and its prices. */
function Timeline({ versions, today }: { versions: Version[]; today: string }) {
  const [open, setOpen] = useState<Record<number, boolean>>({})
  if (versions.length === 0) return <Text c="dimmed">No price yet: start a draft below.</Text>
  const ordered = [...versions].sort((a, b) => b.version - a.version)
  return (
    <Stack
      gap="xs"
      renderRoot={(props) => <ol {...props} />}
      className="versions"
      style={{ listStyle: 'none', padding: 0, margin: 0 }}
      aria-label="Pricing versions"
    >
      {ordered.map((v) => {
        const state = versionState(v, today)
        const rows = v.rows ?? []
        const shown = open[v.version] ?? (state.inForce || v.status === 'DRAFT')
        return (
          <Paper key={v.version} component="li" withBorder p="sm" data-version={v.version}>
            <Group gap="xs" wrap="wrap" justify="space-between">
              <Group gap="xs" wrap="wrap">
                <Text fw={600}>Version {v.version}</Text>
                <StateBadge state={state} />
              </Group>
              <Text size="sm" c="dimmed">
                {MODEL_WORDS[v.pricingModel] ?? v.pricingModel} · {v.currency}
              </Text>
            </Group>
            {v.pricingModel === 'FLAT' && (
              <Text size="sm" mt={4}>
                Unit price <strong className="amount">{money(text(v.price), v.currency)}</strong>
              </Text>
            )}
            {v.pricingModel === 'FORMULA' && (
              <Text size="sm" mt={4}>
                Unit price <Code>{v.price_fx}</Code>
              </Text>
            )}
            {v.pricingModel === 'MATRIX' && (
              <Stack gap={4} mt={4}>
                {shown && <MatrixRows version={v} />}
                <Group>
                  <Button
                    variant="subtle"
                    size="compact-sm"
                    onClick={() => setOpen((o) => ({ ...o, [v.version]: !shown }))}
                  >
                    {shown ? 'Hide the rows' : `Show the ${rows.length} ${rows.length === 1 ? 'row' : 'rows'}`}
                  </Button>
                </Group>
              </Stack>
            )}
          </Paper>
        )
      })}
    </Stack>
  )
}

function MatrixEditor({
  form,
  attributes,
  change,
  errors,
}: {
  form: DraftForm
  attributes: Attribute[]
  change: (f: (form: DraftForm) => DraftForm) => void
  errors: Record<string, string>
}) {
  const setColumn = (id: number, patch: Partial<ColumnForm>) =>
    change((f) => ({ ...f, columns: f.columns.map((c) => (c.id === id ? { ...c, ...patch } : c)) }))
  const setRow = (id: number, patch: Partial<RowForm>) =>
    change((f) => ({ ...f, rows: f.rows.map((r) => (r.id === id ? { ...r, ...patch } : r)) }))
  const setCell = (row: RowForm, column: number, patch: Partial<CellForm>) =>
    setRow(row.id, { cells: { ...row.cells, [column]: { ...(row.cells[column] ?? emptyCell()), ...patch } } })
  const allowed = (c: ColumnForm) => attributes.find((a) => a.code === c.attributeCode)?.allowedValues ?? []
  const columnName = (c: ColumnForm, i: number) => c.code || `column ${i + 1}`
  const attributeOptions = attributes.map((a) => ({
    value: a.code,
    label: a.description ? `${a.code} · ${a.description}` : a.code,
  }))

  return (
    <Stack gap="sm">
      <Title order={4}>Columns</Title>
      {form.columns.map((c, i) => (
        <Group key={c.id} gap="xs" align="flex-end" wrap="wrap" className="matrix-column">
          <TextInput
            label={`Column ${i + 1} code`}
            value={c.code}
            onChange={(e) => setColumn(c.id, { code: e.currentTarget.value })}
            error={errors[`columns[${i}].code`]}
            w={140}
          />
          <Select
            label={`Column ${i + 1} attribute`}
            data={attributeOptions}
            value={c.attributeCode || null}
            onChange={(value) => setColumn(c.id, { attributeCode: value ?? '' })}
            error={errors[`columns[${i}].attributeCode`]}
            placeholder="Choose…"
            w={220}
          />
          <Select
            label={`Column ${i + 1} type`}
            data={COLUMN_TYPES}
            value={c.type}
            allowDeselect={false}
            onChange={(value) => value && setColumn(c.id, { type: value })}
            w={160}
          />
          <Button
            variant="default"
            onClick={() => change((f) => ({ ...f, columns: f.columns.filter((x) => x.id !== c.id) }))}
          >
            Remove column {i + 1}
          </Button>
        </Group>
      ))}
      <Group>
        <Button
          variant="light"
          onClick={() =>
            change((f) => ({
              ...f,
              columns: [...f.columns, { id: newId(), code: '', attributeCode: '', type: 'String' }],
            }))
          }
        >
          Add a column
        </Button>
      </Group>
      <Title order={4}>Rows</Title>
      <Text size="sm" c="dimmed">
        The first matching row by priority prices the unit; an empty cell matches any value.
      </Text>
      <Table.ScrollContainer minWidth={0} maw="100%">
        <Table className="matrix-editor" verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Priority</Table.Th>
              {form.columns.map((c, i) => (
                <Table.Th key={c.id}>
                  {columnName(c, i)}
                  {isRange(c.type) && (
                    <Text span c="dimmed">
                      {' '}
                      (from, to)
                    </Text>
                  )}
                </Table.Th>
              ))}
              <Table.Th>Price ({form.currency})</Table.Th>
              <Table.Th>
                <span className="visually-hidden">Actions</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {form.rows.map((r, ri) => (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <TextInput
                    w={70}
                    inputMode="numeric"
                    aria-label={`Row ${ri + 1} priority`}
                    value={r.priority}
                    onChange={(e) => setRow(r.id, { priority: e.currentTarget.value })}
                    error={errors[`rows[${ri}].priority`]}
                  />
                </Table.Td>
                {form.columns.map((c, ci) => {
                  const cell = r.cells[c.id] ?? emptyCell()
                  const name = `Row ${ri + 1} ${columnName(c, ci)}`
                  if (isRange(c.type))
                    return (
                      <Table.Td key={c.id}>
                        <Group gap={4} wrap="nowrap">
                          <TextInput
                            w={100}
                            aria-label={`${name} from`}
                            placeholder="from"
                            value={cell.from}
                            onChange={(e) => setCell(r, c.id, { from: e.currentTarget.value })}
                          />
                          <TextInput
                            w={100}
                            aria-label={`${name} to`}
                            placeholder="to"
                            value={cell.to}
                            onChange={(e) => setCell(r, c.id, { to: e.currentTarget.value })}
                          />
                        </Group>
                      </Table.Td>
                    )
                  const values = allowed(c)
                  return (
                    <Table.Td key={c.id}>
                      {values.length > 0 ? (
                        <Select
                          w={130}
                          aria-label={name}
                          data={values}
                          value={cell.value || null}
                          placeholder="any"
                          clearable
                          onChange={(value) => setCell(r, c.id, { value: value ?? '' })}
                        />
                      ) : (
                        <TextInput
                          w={130}
                          aria-label={name}
                          value={cell.value}
                          placeholder="any"
                          onChange={(e) => setCell(r, c.id, { value: e.currentTarget.value })}
                        />
                      )}
                    </Table.Td>
                  )
                })}
                <Table.Td>
                  <TextInput
                    w={130}
                    inputMode="decimal"
                    aria-label={`Row ${ri + 1} price`}
                    value={r.price}
                    onChange={(e) => setRow(r.id, { price: e.currentTarget.value })}
                    error={errors[`rows[${ri}].price`]}
                  />
                </Table.Td>
                <Table.Td>
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`Remove row ${ri + 1}`}
                    onClick={() => change((f) => ({ ...f, rows: f.rows.filter((x) => x.id !== r.id) }))}
                  >
                    ✕
                  </ActionIcon>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group>
        <Button
          variant="light"
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
        </Button>
      </Group>
    </Stack>
  )
}

/**
 * One charge's pricing: its versions with their states and prices, the draft's editor (saved only when asked: the
 * API checks prices and formulas then, and names the field it refuses), and publishing after a confirmation.
 */
export function ChargePricing({ charge }: { charge: Charge }) {
  const code = charge.code
  const path = { params: { path: { code } } }
  const today = useTenantToday()
  const attributes = useCatalogList('attributes').data?.data ?? []
  const currencies = (useCatalogList('currencies').data?.data ?? []).map((c) => c.code)
  const refresh = useCatalogRefresh()
  const client = useQueryClient()
  const pricing = useQuery({
    queryKey: ['catalog', 'pricing', code],
    queryFn: () => ok(api.GET('/api/v1/charges/{code}/pricing', path)),
  })
  const versions = pricing.data?.pricingVersions
  const draft = versions?.find((v) => v.status === 'DRAFT')
  const latest = versions?.filter((v) => v.status === 'PUBLISHED').sort((a, b) => b.version - a.version)[0]

  const [form, setForm] = useState<DraftForm>()
  const [message, setMessage] = useState<string>()
  const [confirming, setConfirming] = useState(false)
  const confirmButton = useRef<HTMLButtonElement>(null)
  // The saved draft fills the editor when it first arrives (never over what is being typed).
  const loadedDraft = useRef<number>(undefined)
  useEffect(() => {
    if (draft && loadedDraft.current !== draft.version && !form) {
      loadedDraft.current = draft.version
      setForm(formOf(draft, draft.validFrom ?? ''))
    }
  }, [draft, form])
  useEffect(() => {
    if (confirming) confirmButton.current?.focus()
  }, [confirming])
  const change = (f: (form: DraftForm) => DraftForm) => {
    setMessage(undefined)
    setForm((current) => (current ? f(current) : current))
  }

  const save = useMutation({
    mutationFn: (body: DraftBody) => ok(api.PUT('/api/v1/charges/{code}/pricing/draft', { ...path, body })),
    onSuccess: () => {
      setMessage('Draft saved.')
      void refresh()
    },
  })
  const discard = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/charges/{code}/pricing/draft', path)),
    // The versions are read again before the editor closes, so the discarded draft never fills it again.
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['catalog', 'pricing', code] })
      void refresh()
      setForm(undefined)
      loadedDraft.current = undefined
      setMessage('Draft discarded.')
    },
  })
  const publish = useMutation({
    // The draft as shown is saved first, so what is published is what the person confirmed.
    mutationFn: async (body: DraftBody) => {
      await ok(api.PUT('/api/v1/charges/{code}/pricing/draft', { ...path, body }))
      return ok(api.POST('/api/v1/charges/{code}/pricing/publish', { ...path, body: {} }))
    },
    onSuccess: async (answer) => {
      await client.invalidateQueries({ queryKey: ['catalog', 'pricing', code] })
      void refresh()
      setForm(undefined)
      loadedDraft.current = undefined
      setMessage(
        `Published version ${answer.version}${answer.validFrom ? ` from ${answer.validFrom}` : ' from the start'}.`,
      )
    },
    onSettled: () => setConfirming(false),
  })
  const error = save.error ?? publish.error ?? discard.error ?? pricing.error
  const errors = fieldErrors(save.error ?? publish.error)
  const busy = save.isPending || publish.isPending || discard.isPending

  const start = (today: string) => {
    setMessage(undefined)
    save.reset()
    publish.reset()
    setForm(
      latest
        ? formOf(latest, today)
        : {
            model: 'FLAT',
            currency: currencies[0] ?? 'EUR',
            validFrom: today,
            price: '',
            formula: '',
            columns: [],
            rows: [],
          },
    )
  }

  return (
    <Stack gap="sm" renderRoot={(props) => <section {...props} />} aria-label={`Pricing of ${code}`}>
      <Title order={3}>Prices</Title>
      {versions && today && <Timeline versions={versions} today={today} />}
      {message && (
        <Text role="status" c="green.8" fw={500}>
          {message}
        </Text>
      )}
      {versions && today && !form && (
        <Group>
          <Button onClick={() => start(today)}>
            {latest ? `New draft from version ${latest.version}` : 'New draft'}
          </Button>
        </Group>
      )}
      {form && (
        <Paper
          withBorder
          p="md"
          component="form"
          aria-label="Draft pricing version"
          onSubmit={(e) => e.preventDefault()}
        >
          <Stack gap="sm">
            <Title order={4}>{draft ? `Draft version ${draft.version}` : 'New draft (not saved yet)'}</Title>
            <FormError error={error} shows={(field) => DRAFT_FIELDS.test(field)} />
            <Group gap="sm" align="flex-start" wrap="wrap">
              <Select
                label="Pricing model"
                data={MODELS}
                value={form.model}
                allowDeselect={false}
                onChange={(value) => value && change((f) => ({ ...f, model: value }))}
                w={300}
                maw="100%"
              />
              <Select
                label="Currency"
                data={[...new Set([form.currency, ...currencies])]}
                value={form.currency}
                allowDeselect={false}
                onChange={(value) => value && change((f) => ({ ...f, currency: value }))}
                error={errors.currency}
                w={110}
              />
              <TextInput
                label="Valid from"
                type="date"
                value={form.validFrom}
                onChange={(e) => {
                  const value = e.currentTarget.value
                  change((f) => ({ ...f, validFrom: value }))
                }}
                error={errors.validFrom}
                description={
                  latest
                    ? `After ${latest.validFrom ?? 'the start'} (version ${latest.version})`
                    : 'Empty: from the start'
                }
                w={190}
              />
            </Group>
            {form.model === 'FLAT' && (
              <TextInput
                label={`Unit price (${form.currency})`}
                inputMode="decimal"
                value={form.price}
                onChange={(e) => {
                  const value = e.currentTarget.value
                  change((f) => ({ ...f, price: value }))
                }}
                error={errors.price}
                w={220}
              />
            )}
            {form.model === 'FORMULA' && (
              <Textarea
                label="Price formula"
                description="For example #{quantity > 100 ? 0.5 : 1}; the API checks it when the draft is saved."
                autosize
                minRows={2}
                spellCheck={false}
                value={form.formula}
                onChange={(e) => {
                  const value = e.currentTarget.value
                  change((f) => ({ ...f, formula: value }))
                }}
                error={errors.price_fx}
                styles={{ input: { fontFamily: 'monospace' } }}
              />
            )}
            {form.model === 'MATRIX' && (
              <MatrixEditor form={form} attributes={attributes} change={change} errors={errors} />
            )}
            <Group gap="xs">
              <Button
                variant="default"
                loading={save.isPending}
                disabled={busy}
                onClick={() => save.mutate(bodyOf(form))}
              >
                Save draft
              </Button>
              <Button onClick={() => setConfirming(true)} disabled={confirming || busy}>
                Publish…
              </Button>
              {draft && (
                <Button variant="subtle" color="red" disabled={busy} onClick={() => discard.mutate()}>
                  Discard draft
                </Button>
              )}
              {!draft && (
                <Button variant="subtle" onClick={() => setForm(undefined)}>
                  Cancel
                </Button>
              )}
            </Group>
            {confirming && (
              <Paper withBorder p="sm" bg="yellow.0" role="alertdialog" aria-labelledby="publish-question">
                <Text id="publish-question">
                  Publish this {MODEL_WORDS[form.model]?.toLowerCase()} of {code} from {form.validFrom || 'the start'}?
                  {latest && ` Version ${latest.version} closes that day;`} orders rated from then use the new prices.
                </Text>
                <Group gap="xs" mt="xs">
                  <Button ref={confirmButton} loading={publish.isPending} onClick={() => publish.mutate(bodyOf(form))}>
                    Publish now
                  </Button>
                  <Button variant="default" onClick={() => setConfirming(false)}>
                    Keep the draft
                  </Button>
                </Group>
              </Paper>
            )}
          </Stack>
        </Paper>
      )}
    </Stack>
  )
}
