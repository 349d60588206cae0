import { useMemo, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from 'react-router'
import {
  Alert,
  Button,
  Checkbox,
  Fieldset,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import type { paths } from '../../../clients/typescript/src/index.ts'
import { api, ok, type Schemas } from '../client.ts'
import { ErrorMessage } from '../components.tsx'
import { AccountPicker } from '../AccountPicker.tsx'
import { money } from '../format.ts'
import { queryRecords, scalar, text } from '../query-api.ts'

type OrderInput = NonNullable<paths['/api/v1/orders/preview']['post']['requestBody']>['content']['application/json']
type Attribute = Schemas['Attribute']
type Preview = Awaited<ReturnType<typeof previewOrder>>

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

/** Charge types as a billing team says them. */
export function chargeTypeWords(type: string): string {
  switch (type) {
    case 'ONE_SHOT_SUBSCRIPTION':
      return 'One-time, at subscription'
    case 'ONE_SHOT_TERMINATION':
      return 'One-time, at termination'
    case 'ONE_SHOT_OTHER':
      return 'One-time'
    case 'RECURRING':
      return 'Recurring'
    case 'USAGE':
      return 'Usage'
    default:
      return type
  }
}

/** An amount of the API (a JSON number written from its decimal text, or a decimal string) as money. */
export const amount = (value: unknown, currency: string | undefined): string =>
  value === null || value === undefined ? '–' : money(scalar(value), currency)

const periodWords = (every: { unit: string; length: number } | null): string => {
  if (!every) return 'per period'
  const unit = every.unit === 'MONTH' ? 'month' : every.unit === 'DAY' ? 'day' : every.unit.toLowerCase()
  return every.length === 1 ? `per ${unit}` : `per ${every.length} ${unit}s`
}

async function previewOrder(order: OrderInput) {
  return ok(api.POST('/api/v1/orders/preview', { body: order }))
}

/** The plans an order may apply now, as the server says (`usable=true`): only those are offered. */
type Plans = Map<string, { description: string | null; automatic: boolean }>

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
    <Fieldset legend={legend} variant="unstyled">
      <Stack gap={6}>
        {usable.map((code) => {
          const plan = plans.get(code)!
          return (
            <Checkbox
              key={code}
              label={`${plan.description ?? code}${plan.automatic ? ' (applied automatically)' : ''}`}
              aria-label={plan.description ?? code}
              checked={picked.includes(code)}
              disabled={plan.automatic}
              onChange={(e) => onChange(e.currentTarget.checked ? [...picked, code] : picked.filter((c) => c !== code))}
            />
          )
        })}
      </Stack>
    </Fieldset>
  )
}

/**
 * The attributes of the version the order will take, with their allowed values: which version that is (the one
 * valid on the tenant's today) is the server's answer, never chosen here.
 */
async function attributesOf(productCode: string): Promise<Attribute[]> {
  const orderable = await ok(
    api.GET('/api/v1/products/{code}/orderableVersion', { params: { path: { code: productCode } } }),
  )
  return Promise.all(
    (orderable.version?.attributes ?? []).map((code) =>
      ok(api.GET('/api/v1/attributes/{code}', { params: { path: { code } } })),
    ),
  )
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
  const queryClient = useQueryClient()
  const place = useMutation({
    mutationFn: (o: OrderInput) =>
      ok(api.POST('/api/v1/orders', { params: { query: { autoValidate: validate } }, body: o })).then(
        (answer) => answer as unknown as Placed,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['orders'] }),
  })
  const done = place.isSuccess && place.variables === order
  const placed = done ? place.data : undefined
  const subscriptions = (placed?.orderOffers ?? [])
    .flatMap((x) => (x.subscription ? [`${x.subscription.code} (${x.subscription.status})`] : []))
    .join(', ')

  return (
    <Stack component="section" aria-label="Place the order" gap="xs">
      <Checkbox
        checked={validate}
        onChange={(e) => setValidate(e.currentTarget.checked)}
        label="Validate at once (subscriptions active, one-shot charges billed); otherwise a draft order"
      />
      <Group>
        <Button onClick={() => place.mutate(order)} loading={place.isPending} disabled={done}>
          Place the order
        </Button>
      </Group>
      {placed && (
        <Alert color="green" role="status">
          Order <Link to={`/orders/${encodeURIComponent(placed.code)}`}>{placed.code}</Link> placed: {placed.status}
          {subscriptions ? `; subscription ${subscriptions}` : ''}.
        </Alert>
      )}
      {place.error && place.variables === order && <ErrorMessage error={place.error} />}
    </Stack>
  )
}

/** The preview's summary: one-time, recurring per period, usage per unit, tax and the total with tax. */
function Summary({ summary, currency }: { summary: Preview['summary']; currency: string }) {
  return (
    <Table
      data-testid="totals"
      aria-label="Totals"
      className="preview-totals"
      withRowBorders={false}
      verticalSpacing={4}
    >
      <Table.Tbody>
        <Table.Tr>
          <Table.Th scope="row">One-time</Table.Th>
          <Table.Td ta="right">{amount(summary.oneTime.amountWithoutTax, currency)}</Table.Td>
        </Table.Tr>
        {summary.recurring.map((r) => (
          <Table.Tr key={`${r.periodStart}/${r.periodEnd}`}>
            <Table.Th scope="row">
              Recurring {periodWords(r.every)}
              <Text size="xs" c="dimmed">
                first period {r.periodStart} to {r.periodEnd}
                {r.prorated ? ', prorated' : ''}
              </Text>
            </Table.Th>
            <Table.Td ta="right">{amount(r.amountWithoutTax, currency)}</Table.Td>
          </Table.Tr>
        ))}
        {summary.usage.map((u) => (
          <Table.Tr key={`${u.productCode}/${u.chargeCode}`}>
            <Table.Th scope="row">
              Usage: {u.label}
              {u.pricingModel === 'FORMULA' && (
                <Text size="xs" c="dimmed">
                  first unit; the price formula may vary with the volume
                </Text>
              )}
            </Table.Th>
            <Table.Td ta="right">
              {u.unitPriceWithoutTax === null
                ? 'priced when used'
                : `${amount(u.unitPriceWithoutTax, currency)} per ${u.unit ?? 'unit'}`}
            </Table.Td>
          </Table.Tr>
        ))}
        <Table.Tr>
          <Table.Th scope="row">Tax</Table.Th>
          <Table.Td ta="right">{amount(summary.known.amountTax, currency)}</Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th scope="row">
            Total with tax
            {summary.usage.length > 0 && (
              <Text size="xs" c="dimmed">
                usage billed on top, as it is used
              </Text>
            )}
          </Table.Th>
          <Table.Td ta="right" fw={700}>
            {amount(summary.known.amountWithTax, currency)}
          </Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  )
}

/** An order as it would be rated: the form on the left, the API's preview (lines and totals) beside it. */
export function OrderPreview() {
  const [billingCode, setBillingCode] = useState('')
  const [userCode, setUserCode] = useState('')
  const [offerCode, setOfferCode] = useState('')
  const [products, setProducts] = useState<ProductForm[]>([])
  const [offerPlans, setOfferPlans] = useState<string[]>([])
  const [formError, setFormError] = useState<unknown>()
  const queryClient = useQueryClient()

  // Only the offers an order accepts: the server says which (the catalog's statuses rule stays there).
  const offers = useQuery({
    queryKey: ['offers', 'orderable'],
    queryFn: () => ok(api.GET('/v1/catalog/offers', { params: { query: { orderable: true, range: '0-99' } } })),
  })
  const plans = useQuery({
    queryKey: ['discountPlans', 'usable'],
    queryFn: () =>
      ok(api.GET('/api/v1/discountPlans', { params: { query: { limit: 1000, sortBy: 'code', usable: true } } })),
    select: (page): Plans =>
      new Map(page.data.map((p) => [p.code, { description: p.description, automatic: p.automaticApplication }])),
  })
  const offer = useQuery({
    queryKey: ['offerTemplate', offerCode],
    queryFn: () => ok(api.GET('/api/v1/offerTemplates/{code}', { params: { path: { code: offerCode } } })),
    enabled: offerCode !== '',
  })
  // The seller of the billing account, as the Query API reads it through the customer.
  const seller = useQuery({
    queryKey: ['sellerOf', billingCode],
    queryFn: () =>
      queryRecords('billingAccount', {
        filters: { code: billingCode },
        fields: ['code', 'customerAccount.customer.seller.code', 'tradingCurrency.code'],
        limit: 1,
      }).then((page) => text(page.rows[0], 'customerAccount.customer.seller.code')),
    enabled: billingCode !== '',
  })
  const sellerCode = seller.data ?? ''

  const chooseBilling = (code: string) => {
    setBillingCode(code)
    setUserCode('')
    if (!code) return
    // The first user account of the billing account, chosen for the user (changeable).
    queryClient
      .query({
        queryKey: ['accountSearch', 'userAccount', { billingAccount: code }, ''],
        queryFn: () =>
          queryRecords('userAccount', {
            filters: { billingAccount: code },
            fields: ['code', 'name', 'description'],
            limit: 20,
            sortBy: 'code',
          }),
      })
      .then((page) => setUserCode((current) => current || text(page.rows[0], 'code')), setFormError)
  }
  const chooseOffer = (code: string) => {
    setOfferCode(code)
    setOfferPlans([])
    setProducts([])
    if (!code) return
    setFormError(undefined)
    queryClient
      .query({
        queryKey: ['offerTemplate', code],
        queryFn: () => ok(api.GET('/api/v1/offerTemplates/{code}', { params: { path: { code } } })),
      })
      .then(async (template) => {
        const chosen = template.offerComponents.map((c) => ({
          code: c.productCode,
          quantity: String(c.defaultQuantity ?? 1),
          range:
            c.minQuantity != null || c.maxQuantity != null
              ? `${c.minQuantity ?? 0} to ${c.maxQuantity ?? 'any number'}`
              : '',
        }))
        const lists = await Promise.all(
          chosen.map((p) =>
            Promise.all([
              attributesOf(p.code),
              ok(api.GET('/api/v1/products/{code}/discountPlans', { params: { path: { code: p.code } } })).then(
                (l) => l.discountPlans,
              ),
            ]),
          ),
        )
        setProducts(
          chosen.map((p, i) => ({ ...p, attributes: lists[i]![0], values: {}, plans: lists[i]![1], picked: [] })),
        )
      }, setFormError)
      .catch(setFormError)
  }
  const changeProduct = (index: number, change: Partial<ProductForm>) =>
    setProducts((list) => list.map((p, i) => (i === index ? { ...p, ...change } : p)))

  // Attributes still without a value, named: the preview waits for them (a price matrix needs every one).
  const missing = products.flatMap((p) =>
    p.attributes.filter((a) => (p.values[a.code] ?? '') === '').map((a) => `${a.description ?? a.code} (${p.code})`),
  )

  const order: OrderInput | undefined = useMemo(() => {
    if (!billingCode || !userCode || !offerCode || !sellerCode || products.length === 0) return undefined
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
            quantity: p.quantity as unknown as number,
            ...(p.picked.length > 0 ? { discountPlanCodes: p.picked } : {}),
            orderAttributes: Object.entries(p.values)
              .filter(([, v]) => v !== '')
              .map(([attributeCode, value]) => {
                const kind = p.attributes.find((a) => a.code === attributeCode)?.attributeType ?? ''
                return /NUMERIC|INTEGER/.test(kind)
                  ? { attributeCode, doubleValue: value as unknown as number }
                  : { attributeCode, stringValue: value }
              }),
          })),
        },
      ],
    }
  }, [billingCode, userCode, offerCode, sellerCode, products, offerPlans])

  // The preview follows the form a moment after its last change; each form has its own key, so an answer to an
  // older form never replaces the newer one's.
  const [asked] = useDebouncedValue(order, 250)
  const preview = useQuery({
    queryKey: ['orderPreview', asked],
    queryFn: () => previewOrder(asked!),
    enabled: asked !== undefined,
    placeholderData: (previous, previousQuery) =>
      order !== undefined && previousQuery?.state.error === null ? previous : undefined,
    staleTime: 0,
  })
  const shownPreview = order ? preview.data : undefined
  const currency = shownPreview?.currency
  const error = formError ?? offers.error ?? (order ? preview.error : undefined)

  return (
    <Stack gap="md">
      <Title order={1}>Order preview</Title>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Paper withBorder p="md" miw={0} component="form" aria-label="Order" onSubmit={(e) => e.preventDefault()}>
          <Stack gap="sm">
            <AccountPicker kind="billingAccount" label="Billing account" value={billingCode} onChange={chooseBilling} />
            <AccountPicker
              kind="userAccount"
              label="User account"
              value={userCode}
              onChange={(code) => setUserCode(code)}
              within={billingCode ? { billingAccount: billingCode } : undefined}
              disabled={!billingCode}
            />
            {sellerCode && (
              <Text size="sm" c="dimmed">
                Seller {sellerCode}
              </Text>
            )}
            <Select
              label="Offer"
              placeholder={offers.isPending ? 'Loading offers…' : 'Choose an offer'}
              searchable
              value={offerCode || null}
              onChange={(code) => chooseOffer(code ?? '')}
              data={(offers.data ?? []).map((o) => ({
                value: o.code,
                label: `${o.code} · ${o.name ?? o.description ?? ''}`,
              }))}
              nothingFoundMessage="No orderable offer matches"
            />
            <PlanPicker
              legend="Offer discount plans"
              codes={offer.data?.discountPlans ?? []}
              plans={plans.data ?? new Map()}
              picked={offerPlans}
              onChange={setOfferPlans}
            />
            {products.map((p, index) => (
              <Fieldset key={p.code} legend={`Product ${p.code}`}>
                <Stack gap="xs">
                  <TextInput
                    label="Quantity"
                    description={p.range ? `from ${p.range}` : undefined}
                    inputMode="decimal"
                    value={p.quantity}
                    onChange={(e) => changeProduct(index, { quantity: e.currentTarget.value })}
                  />
                  {p.attributes.map((a) =>
                    a.allowedValues.length > 0 ? (
                      <Select
                        key={a.code}
                        label={a.description ?? a.code}
                        placeholder="Choose a value"
                        clearable
                        value={p.values[a.code] || null}
                        data={a.allowedValues}
                        onChange={(v) => changeProduct(index, { values: { ...p.values, [a.code]: v ?? '' } })}
                      />
                    ) : (
                      <TextInput
                        key={a.code}
                        label={a.description ?? a.code}
                        value={p.values[a.code] ?? ''}
                        onChange={(e) =>
                          changeProduct(index, { values: { ...p.values, [a.code]: e.currentTarget.value } })
                        }
                      />
                    ),
                  )}
                  <PlanPicker
                    legend={`Discount plans of ${p.code}`}
                    codes={p.plans}
                    plans={plans.data ?? new Map()}
                    picked={p.picked}
                    onChange={(picked) => changeProduct(index, { picked })}
                  />
                </Stack>
              </Fieldset>
            ))}
          </Stack>
        </Paper>
        <Stack component="section" aria-label="Rated lines" aria-live="polite" gap="sm" miw={0}>
          <ErrorMessage error={error} />
          {!order && !error && (
            <Text c="dimmed" data-testid="preview-waits">
              {!billingCode || !offerCode
                ? 'Choose a billing account and an offer to see the rated lines.'
                : missing.length > 0
                  ? `Choose a value for ${missing.join(', ')} to see the rated lines.`
                  : 'Loading the offer…'}
            </Text>
          )}
          {shownPreview?.offers.map((o) => (
            <Paper key={o.offerCode} withBorder p="md" miw={0} className="preview-card">
              <Title order={2} size="h3">
                {o.offerCode}{' '}
                <Text span c="dimmed" size="sm">
                  ({shownPreview.currency})
                </Text>
              </Title>
              <Table.ScrollContainer minWidth={0}>
                <Table aria-label={`Lines of ${o.offerCode}`} className="preview-lines" verticalSpacing={4}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Charge</Table.Th>
                      <Table.Th>Type</Table.Th>
                      <Table.Th ta="right">Without tax</Table.Th>
                      <Table.Th ta="right">With tax</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {o.lines.map((l, i) => (
                      <Table.Tr key={i} className={l.discountPlanCode ? 'discount' : undefined}>
                        <Table.Td>
                          {l.label || l.chargeCode}
                          {l.discountPlanCode && (
                            <Text span size="xs" c="dimmed">
                              {' '}
                              · discount {l.discountPlanCode}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td className="type">{chargeTypeWords(l.chargeType)}</Table.Td>
                        <Table.Td ta="right" data-label="Without tax">
                          {l.amountWithoutTax === null ? 'when used' : amount(l.amountWithoutTax, currency)}
                        </Table.Td>
                        <Table.Td ta="right" data-label="With tax">
                          {l.amountWithTax === null ? 'when used' : amount(l.amountWithTax, currency)}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <Summary summary={o.summary} currency={shownPreview.currency} />
            </Paper>
          ))}
          {shownPreview && order && <PlaceOrder order={order} />}
        </Stack>
      </SimpleGrid>
    </Stack>
  )
}
