import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import { useMutation, useQuery } from '@tanstack/react-query'
import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Checkbox,
  Group,
  MultiSelect,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core'
import {
  isOfferStatus,
  nextOfferStatuses,
  PORTAL_STATUS,
  type OfferStatus,
} from '../../../src/modules/catalog/offer-status.model.ts'
import type { Schemas } from '../client.ts'
import { api, ok } from '../client.ts'
import {
  FormError,
  fieldErrors,
  optionsOf,
  useCatalogList,
  useCatalogRefresh,
  type Listed,
  MutationForm,
} from './catalog-shared.tsx'

type Offer = Listed<'offers'>
type ComponentInput = NonNullable<Schemas['OfferTemplateUpdate']['offerComponents']>[number]

/** The stage of a draft offer, in words (the portal calls all three "draft"). */
const DRAFT_STAGE: Partial<Record<OfferStatus, string>> = {
  IN_STUDY: 'in study',
  IN_DESIGN: 'in design',
  IN_TEST: 'in test',
}
const RETIRED_WORDS: Partial<Record<OfferStatus, string>> = {
  RETIRED: 'retired',
  OBSOLETE: 'retired, obsolete',
  REJECTED: 'retired, rejected',
}
const STATUS_COLOR = { draft: 'gray', ready: 'blue', live: 'green', retired: 'dark' } as const

/** A status as the portal says it: "draft, in test", "ready", "live", "retired, rejected". */
export function offerStatusWords(status: string): string {
  if (!isOfferStatus(status)) return status.toLowerCase()
  const portal = PORTAL_STATUS[status]
  if (portal === 'draft') return `draft, ${DRAFT_STAGE[status]}`
  if (portal === 'retired') return RETIRED_WORDS[status] ?? 'retired'
  return portal
}

/** The move to a status, as a button says it. */
const MOVE_WORDS: Record<OfferStatus, string> = {
  IN_STUDY: 'Back to study',
  IN_DESIGN: 'To design',
  IN_TEST: 'To test',
  ACTIVE: 'Make ready',
  LAUNCHED: 'Launch',
  RETIRED: 'Retire',
  OBSOLETE: 'Mark obsolete',
  REJECTED: 'Reject',
}

export function OfferStatusBadge({ status }: { status: string }) {
  const color = isOfferStatus(status) ? STATUS_COLOR[PORTAL_STATUS[status]] : 'gray'
  return (
    <Badge color={color} variant="light" tt="none" radius="sm" className="offer-status">
      {offerStatusWords(status)}
    </Badge>
  )
}

/**
 * The moves the transition table allows from an offer's status (the table the API applies, imported from the catalog
 * module, so no button leads to a refusal), each in words.
 */
function Moves({ offer, onMoved }: { offer: Offer; onMoved: (message: string) => void }) {
  const refresh = useCatalogRefresh()
  const move = useMutation({
    mutationFn: (to: OfferStatus) =>
      ok(
        api.PUT('/api/v1/offerTemplates/{code}', {
          params: { path: { code: offer.code } },
          body: { lifeCycleStatus: to },
        }),
      ),
    onSuccess: (moved) => {
      onMoved(`${moved.code} is now ${offerStatusWords(moved.lifeCycleStatus)}.`)
      void refresh()
    },
  })
  const status = offer.lifeCycleStatus
  if (!isOfferStatus(status)) return null
  return (
    <Stack gap={4}>
      <Group gap={6} wrap="wrap" className="moves">
        {nextOfferStatuses(status).map((to) => (
          <Button
            key={to}
            size="compact-sm"
            variant={to === 'REJECTED' || to === 'RETIRED' || to === 'OBSOLETE' ? 'subtle' : 'light'}
            color={to === 'REJECTED' || to === 'RETIRED' || to === 'OBSOLETE' ? 'red' : undefined}
            loading={move.isPending && move.variables === to}
            onClick={() => move.mutate(to)}
            aria-label={`${MOVE_WORDS[to]}: ${offer.code} becomes ${offerStatusWords(to)}`}
          >
            {MOVE_WORDS[to]}
          </Button>
        ))}
      </Group>
      <FormError error={move.error} />
    </Stack>
  )
}

function OfferList() {
  const offers = useCatalogList('offers')
  const [message, setMessage] = useState<string>()
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1} style={{ overflowWrap: 'anywhere' }}>
          Offers
        </Title>
        <Button component={Link} to="new">
          New offer
        </Button>
      </Group>
      {message && (
        <Text role="status" c="green.8" fw={500}>
          {message}
        </Text>
      )}
      <FormError error={offers.error} />
      {offers.data && (
        <Table.ScrollContainer minWidth={620}>
          <Table striped aria-label="Offers" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Code</Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Moves</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {offers.data.data.map((o) => (
                <Table.Tr key={o.code} data-offer={o.code}>
                  <Table.Td>
                    <Anchor component={Link} to={encodeURIComponent(o.code)}>
                      {o.code}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{o.name}</Table.Td>
                  <Table.Td>
                    <OfferStatusBadge status={o.lifeCycleStatus} />
                  </Table.Td>
                  <Table.Td>
                    <Moves offer={o} onMoved={setMessage} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  )
}

interface ComponentForm {
  productCode: string
  mandatory: boolean
  defaultQuantity: string
}
interface OfferForm {
  code: string
  name: string
  description: string
  components: ComponentForm[]
  discountPlans: string[]
  sellers: string[]
}
const OFFER_FIELDS = /^(code|name|description|discountPlans|sellers|offerComponents(\[\d+\]\.defaultQuantity)?)$/
const orNull = (value: string) => (value.trim() === '' ? null : value.trim())

function offerBody(form: OfferForm) {
  return {
    name: orNull(form.name),
    description: orNull(form.description),
    offerComponents: form.components.map((c, sequence): ComponentInput => ({
      productCode: c.productCode,
      mandatory: c.mandatory,
      ...(c.defaultQuantity.trim() ? { defaultQuantity: c.defaultQuantity.trim() } : {}),
      sequence,
    })),
    discountPlans: form.discountPlans,
    sellers: form.sellers,
  }
}

/** The offer's fields: name and description, its products (the components), its discount plans and sellers. */
function OfferFields({
  form,
  setForm,
  errors,
  creating,
}: {
  form: OfferForm
  setForm: (f: (form: OfferForm) => OfferForm) => void
  errors: Record<string, string>
  creating: boolean
}) {
  const products = useCatalogList('products').data?.data
  const plans = useCatalogList('usableDiscountPlans').data?.data
  const sellers = useCatalogList('sellers').data?.data
  const [adding, setAdding] = useState<string | null>(null)
  const setComponent = (i: number, patch: Partial<ComponentForm>) =>
    setForm((f) => ({ ...f, components: f.components.map((c, j) => (j === i ? { ...c, ...patch } : c)) }))
  const productOptions = optionsOf(products).filter((o) => !form.components.some((c) => c.productCode === o.value))
  // The plans orders may use now, as the server lists them; one the offer already has that orders cannot use now
  // (still in draft, or used up) stays shown, marked, so it can be seen and removed.
  const planOptions = [
    ...optionsOf(plans),
    ...(plans === undefined ? [] : form.discountPlans)
      .filter((code) => !plans?.some((p) => p.code === code))
      .map((code) => ({ value: code, label: `${code} (orders cannot use it now)` })),
  ]

  return (
    <Stack gap="sm">
      {creating && (
        <TextInput
          label="Code"
          withAsterisk
          value={form.code}
          onChange={(e) => {
            const value = e.currentTarget.value
            setForm((f) => ({ ...f, code: value }))
          }}
          error={errors.code}
          w={300}
          maw="100%"
        />
      )}
      <TextInput
        label="Name"
        value={form.name}
        onChange={(e) => {
          const value = e.currentTarget.value
          setForm((f) => ({ ...f, name: value }))
        }}
        error={errors.name}
        w={420}
        maw="100%"
      />
      <Textarea
        label="Description"
        autosize
        minRows={2}
        value={form.description}
        onChange={(e) => {
          const value = e.currentTarget.value
          setForm((f) => ({ ...f, description: value }))
        }}
        error={errors.description}
        maw={600}
      />
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          Products
        </Text>
        {form.components.length === 0 && (
          <Text size="sm" c="dimmed">
            No product yet: an offer sells one or more products.
          </Text>
        )}
        {form.components.length > 0 && (
          <Table.ScrollContainer minWidth={0}>
            <Table aria-label="Products of the offer" verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Product</Table.Th>
                  <Table.Th>Mandatory</Table.Th>
                  <Table.Th>Default quantity</Table.Th>
                  <Table.Th>
                    <span className="visually-hidden">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {form.components.map((c, i) => (
                  <Table.Tr key={c.productCode}>
                    <Table.Td>{c.productCode}</Table.Td>
                    <Table.Td>
                      <Checkbox
                        aria-label={`${c.productCode} is mandatory`}
                        checked={c.mandatory}
                        onChange={(e) => setComponent(i, { mandatory: e.currentTarget.checked })}
                      />
                    </Table.Td>
                    <Table.Td>
                      <TextInput
                        w={90}
                        inputMode="decimal"
                        aria-label={`${c.productCode} default quantity`}
                        placeholder="1"
                        value={c.defaultQuantity}
                        onChange={(e) => setComponent(i, { defaultQuantity: e.currentTarget.value })}
                        error={errors[`offerComponents[${i}].defaultQuantity`]}
                      />
                    </Table.Td>
                    <Table.Td>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Remove ${c.productCode}`}
                        onClick={() => setForm((f) => ({ ...f, components: f.components.filter((_, j) => j !== i) }))}
                      >
                        ✕
                      </ActionIcon>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        <Group gap="xs" align="flex-end" wrap="wrap">
          <Select
            aria-label="Product to add"
            placeholder="Choose a product…"
            data={productOptions}
            value={adding}
            onChange={setAdding}
            searchable
            w={300}
            maw="100%"
          />
          <Button
            variant="light"
            disabled={!adding}
            onClick={() => {
              if (adding)
                setForm((f) => ({
                  ...f,
                  components: [...f.components, { productCode: adding, mandatory: true, defaultQuantity: '1' }],
                }))
              setAdding(null)
            }}
          >
            Add the product
          </Button>
        </Group>
        {errors.offerComponents && (
          <Text size="sm" c="red">
            {errors.offerComponents}
          </Text>
        )}
      </Stack>
      <MultiSelect
        label="Discount plans orders may choose"
        data={planOptions}
        value={form.discountPlans}
        onChange={(value) => setForm((f) => ({ ...f, discountPlans: value }))}
        error={errors.discountPlans}
        searchable
        clearable
        maw={600}
      />
      <MultiSelect
        label="Sold by"
        description="Empty: every seller"
        data={optionsOf(sellers)}
        value={form.sellers}
        onChange={(value) => setForm((f) => ({ ...f, sellers: value }))}
        error={errors.sellers}
        searchable
        clearable
        maw={600}
      />
    </Stack>
  )
}

function NewOffer() {
  const [form, setForm] = useState<OfferForm>({
    code: '',
    name: '',
    description: '',
    components: [],
    discountPlans: [],
    sellers: [],
  })
  const navigate = useNavigate()
  const refresh = useCatalogRefresh()
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/offerTemplates', { body: { code: form.code.trim(), ...offerBody(form) } })),
    onSuccess: (offer) => {
      void refresh()
      void navigate(`../${encodeURIComponent(offer.code)}`, { relative: 'path' })
    },
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Offers
      </Anchor>
      <Title order={1} style={{ overflowWrap: 'anywhere' }}>
        New offer
      </Title>
      <MutationForm
        label="New offer"
        submit={() => create.mutate()}
        error={create.error}
        shows={(field) => OFFER_FIELDS.test(field)}
      >
        <OfferFields form={form} setForm={setForm} errors={fieldErrors(create.error)} creating />
        <Text size="sm" c="dimmed">
          A new offer is a draft, in design: move it to test, then make it ready to be ordered.
        </Text>
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create the offer
          </Button>
        </Group>
      </MutationForm>
    </Stack>
  )
}

const formOf = (o: Offer): OfferForm => ({
  code: o.code,
  name: o.name ?? '',
  description: o.description ?? '',
  components: o.offerComponents.map((c) => ({
    productCode: c.productCode,
    mandatory: c.mandatory,
    defaultQuantity: String(c.defaultQuantity),
  })),
  discountPlans: o.discountPlans,
  sellers: o.sellers,
})

function OfferPage() {
  const { code = '' } = useParams()
  const refresh = useCatalogRefresh()
  const [message, setMessage] = useState<string>()
  const offer = useQuery({
    queryKey: ['catalog', 'offer', code],
    queryFn: () => ok(api.GET('/api/v1/offerTemplates/{code}', { params: { path: { code } } })),
  })
  const [form, setForm] = useState<OfferForm>()
  const shown = form ?? (offer.data && formOf(offer.data))
  const update = useMutation({
    mutationFn: (f: OfferForm) =>
      ok(api.PUT('/api/v1/offerTemplates/{code}', { params: { path: { code } }, body: offerBody(f) })),
    onSuccess: () => {
      setForm(undefined)
      setMessage('Offer saved.')
      void refresh()
    },
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Offers
      </Anchor>
      <FormError error={offer.error} />
      {offer.data && shown && (
        <>
          <Group gap="sm" wrap="wrap">
            <Title order={1} style={{ overflowWrap: 'anywhere' }}>
              {offer.data.code}
            </Title>
            <OfferStatusBadge status={offer.data.lifeCycleStatus} />
          </Group>
          {message && (
            <Text role="status" c="green.8" fw={500}>
              {message}
            </Text>
          )}
          <Paper withBorder p="sm">
            <Text size="sm" fw={600} mb={4}>
              Status
            </Text>
            <Moves offer={offer.data} onMoved={setMessage} />
          </Paper>
          <MutationForm
            label="Offer"
            submit={() => update.mutate(shown)}
            error={update.error}
            shows={(field) => OFFER_FIELDS.test(field)}
          >
            <OfferFields
              form={shown}
              setForm={(f) => {
                setMessage(undefined)
                setForm(f(shown))
              }}
              errors={fieldErrors(update.error)}
              creating={false}
            />
            <Group>
              <Button type="submit" variant="default" loading={update.isPending} disabled={!form}>
                Save the offer
              </Button>
            </Group>
          </MutationForm>
        </>
      )}
    </Stack>
  )
}

/** Offers: the list with their statuses and moves, a new offer, and an offer's page (its products, plans, sellers). */
export function Offers() {
  return (
    <div className="screen catalog">
      <Routes>
        <Route index element={<OfferList />} />
        <Route path="new" element={<NewOffer />} />
        <Route path=":code" element={<OfferPage />} />
      </Routes>
    </div>
  )
}
