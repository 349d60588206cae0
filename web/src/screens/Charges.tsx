import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import { useMutation, useQuery } from '@tanstack/react-query'
import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  Group,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import type { Schemas } from '../client.ts'
import { api, ok } from '../client.ts'
import {
  CHARGE_TYPE_WORDS,
  FormError,
  ONE_SHOT_WORDS,
  fieldErrors,
  optionsOf,
  useCatalogList,
  useCatalogRefresh,
  type Listed,
  MutationForm,
} from './catalog-shared.tsx'
import { ChargePricing } from './Pricing.tsx'

type Charge = Listed<'charges'>
type ChargeType = Schemas['ChargeInput']['type']
type OneShotType = NonNullable<Schemas['ChargeInput']['oneShotType']>

/** The fields of the form, as typed; only those of the chosen type are sent. */
interface ChargeForm {
  code: string
  description: string
  type: ChargeType
  invoiceSubCategory: string
  taxClass: string
  oneShotType: OneShotType
  billingCalendar: string
  subscriptionProrata: boolean
  inputUnitOfMeasure: string
  ratingUnitOfMeasure: string
  filterParam1: string
}

const blank: ChargeForm = {
  code: '',
  description: '',
  type: 'ONESHOT',
  invoiceSubCategory: '',
  taxClass: '',
  oneShotType: 'SUBSCRIPTION',
  billingCalendar: '',
  subscriptionProrata: false,
  inputUnitOfMeasure: '',
  ratingUnitOfMeasure: '',
  filterParam1: '',
}

const formOf = (c: Charge): ChargeForm => ({
  code: c.code,
  description: c.description ?? '',
  type: c.type,
  invoiceSubCategory: c.invoiceSubCategory ?? '',
  taxClass: c.taxClass ?? '',
  oneShotType: c.oneShotType ?? 'SUBSCRIPTION',
  billingCalendar: c.billingCalendar ?? '',
  subscriptionProrata: c.subscriptionProrata,
  inputUnitOfMeasure: c.inputUnitOfMeasure ?? '',
  ratingUnitOfMeasure: c.ratingUnitOfMeasure ?? '',
  filterParam1: c.filterParam1 ?? '',
})

const orNull = (value: string) => (value.trim() === '' ? null : value.trim())

/** The body of a create or an update: the common fields and those of the chosen type, nothing of the others. */
function fieldsOf(form: ChargeForm) {
  const common = {
    description: orNull(form.description),
    ...(form.invoiceSubCategory ? { invoiceSubCategory: form.invoiceSubCategory } : {}),
    ...(form.taxClass ? { taxClass: form.taxClass } : {}),
  }
  if (form.type === 'ONESHOT') return { ...common, oneShotType: form.oneShotType }
  if (form.type === 'RECURRING')
    return { ...common, billingCalendar: orNull(form.billingCalendar), subscriptionProrata: form.subscriptionProrata }
  return {
    ...common,
    inputUnitOfMeasure: orNull(form.inputUnitOfMeasure),
    ratingUnitOfMeasure: orNull(form.ratingUnitOfMeasure),
    filterParam1: orNull(form.filterParam1),
  }
}

/** The charge's fields, those of its type only; the type is chosen once, when the charge is created. */
function ChargeFields({
  form,
  setForm,
  errors,
  creating,
}: {
  form: ChargeForm
  setForm: (f: (form: ChargeForm) => ChargeForm) => void
  errors: Record<string, string>
  creating: boolean
}) {
  const subCategories = useCatalogList('invoiceSubCategories').data?.data
  const taxClasses = useCatalogList('taxClasses').data?.data
  const calendars = useCatalogList('calendars').data?.data
  const units = useCatalogList('unitsOfMeasure').data?.data
  const set =
    <K extends keyof ChargeForm>(key: K) =>
    (value: ChargeForm[K]) =>
      setForm((f) => ({ ...f, [key]: value }))
  const text = (key: 'code' | 'description' | 'filterParam1') => ({
    value: form[key],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => set(key)(e.currentTarget.value),
    error: errors[key],
  })
  const pick = (
    key: 'invoiceSubCategory' | 'taxClass' | 'billingCalendar' | 'inputUnitOfMeasure' | 'ratingUnitOfMeasure',
  ) => ({
    value: form[key] || null,
    onChange: (value: string | null) => set(key)(value ?? ''),
    error: errors[key],
    searchable: true,
    w: 300,
    maw: '100%',
  })

  return (
    <Stack gap="sm">
      {creating && (
        <>
          <TextInput label="Code" withAsterisk {...text('code')} w={300} maw="100%" />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="charge-type">
              Type
            </Text>
            <SegmentedControl
              aria-labelledby="charge-type"
              value={form.type}
              onChange={(value) => set('type')(value)}
              data={[
                { value: 'ONESHOT', label: 'One-shot' },
                { value: 'RECURRING', label: 'Recurring' },
                { value: 'USAGE', label: 'Usage' },
              ]}
              w="fit-content"
              maw="100%"
            />
          </Stack>
        </>
      )}
      <TextInput label="Description" {...text('description')} w={420} maw="100%" />
      <Group gap="sm" align="flex-start" wrap="wrap">
        <Select
          label="Invoice sub-category"
          withAsterisk
          data={optionsOf(subCategories)}
          {...pick('invoiceSubCategory')}
        />
        <Select label="Tax class" withAsterisk data={optionsOf(taxClasses)} {...pick('taxClass')} />
      </Group>
      {form.type === 'ONESHOT' && (
        <Select
          label="Charged"
          data={Object.entries(ONE_SHOT_WORDS).map(([value, label]) => ({ value, label }))}
          value={form.oneShotType}
          allowDeselect={false}
          onChange={(value) => value && set('oneShotType')(value as OneShotType)}
          error={errors.oneShotType}
          w={300}
          maw="100%"
        />
      )}
      {form.type === 'RECURRING' && (
        <>
          <Select label="Billing calendar" withAsterisk data={optionsOf(calendars)} {...pick('billingCalendar')} />
          <Checkbox
            label="Prorate the first period by days"
            checked={form.subscriptionProrata}
            onChange={(e) => set('subscriptionProrata')(e.currentTarget.checked)}
          />
        </>
      )}
      {form.type === 'USAGE' && (
        <>
          <Group gap="sm" align="flex-start" wrap="wrap">
            <Select
              label="Unit of the usage records"
              data={optionsOf(units)}
              clearable
              {...pick('inputUnitOfMeasure')}
            />
            <Select label="Unit the price is per" data={optionsOf(units)} clearable {...pick('ratingUnitOfMeasure')} />
          </Group>
          <TextInput
            label="Usage records selected by (param1)"
            description="Only usage records whose param1 is this value are rated by the charge; empty: all."
            {...text('filterParam1')}
            w={300}
            maw="100%"
          />
        </>
      )}
    </Stack>
  )
}

function ChargeList() {
  const charges = useCatalogList('charges')
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1} style={{ overflowWrap: 'anywhere' }}>
          Charges
        </Title>
        <Button component={Link} to="new">
          New charge
        </Button>
      </Group>
      <FormError error={charges.error} />
      {charges.data && (
        <Table.ScrollContainer minWidth={520}>
          <Table striped highlightOnHover aria-label="Charges">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Code</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Status</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {charges.data.data.map((c) => (
                <Table.Tr key={c.code}>
                  <Table.Td>
                    <Anchor component={Link} to={encodeURIComponent(c.code)}>
                      {c.code}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{c.description}</Table.Td>
                  <Table.Td>{CHARGE_TYPE_WORDS[c.type] ?? c.type}</Table.Td>
                  <Table.Td>
                    <ChargeStatus charge={c} />
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

function ChargeStatus({ charge }: { charge: Charge }) {
  return charge.status === 'ACTIVE' ? (
    <Badge color="green" variant="light" tt="none">
      Priced
    </Badge>
  ) : (
    <Badge color="gray" variant="light" tt="none">
      No published price yet
    </Badge>
  )
}

function NewCharge() {
  const [form, setForm] = useState<ChargeForm>(blank)
  const navigate = useNavigate()
  const refresh = useCatalogRefresh()
  const create = useMutation({
    mutationFn: () =>
      ok(api.POST('/api/v1/charges', { body: { code: form.code.trim(), type: form.type, ...fieldsOf(form) } })),
    onSuccess: (created) => {
      void refresh()
      void navigate(`../${encodeURIComponent(created.code)}`, { relative: 'path' })
    },
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Charges
      </Anchor>
      <Title order={1} style={{ overflowWrap: 'anywhere' }}>
        New charge
      </Title>
      <MutationForm
        label="New charge"
        submit={() => create.mutate()}
        error={create.error}
        shows={(field) => field in blank}
      >
        <ChargeFields form={form} setForm={setForm} errors={fieldErrors(create.error)} creating />
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create the charge
          </Button>
        </Group>
      </MutationForm>
    </Stack>
  )
}

function ChargeEditor({ charge }: { charge: Charge }) {
  const [form, setForm] = useState<ChargeForm>(() => formOf(charge))
  const [saved, setSaved] = useState(false)
  const refresh = useCatalogRefresh()
  const update = useMutation({
    mutationFn: () =>
      ok(api.PUT('/api/v1/charges/{code}', { params: { path: { code: charge.code } }, body: fieldsOf(form) })),
    onSuccess: () => {
      setSaved(true)
      void refresh()
    },
  })
  return (
    <MutationForm label="Charge" submit={() => update.mutate()} error={update.error} shows={(field) => field in blank}>
      <ChargeFields
        form={form}
        setForm={(f) => {
          setSaved(false)
          setForm(f)
        }}
        errors={fieldErrors(update.error)}
        creating={false}
      />
      <Group>
        <Button type="submit" variant="default" loading={update.isPending}>
          Save the charge
        </Button>
        {saved && (
          <Text role="status" c="green.8" size="sm">
            Charge saved.
          </Text>
        )}
      </Group>
    </MutationForm>
  )
}

function ChargePage() {
  const { code = '' } = useParams()
  const charge = useQuery({
    queryKey: ['catalog', 'charge', code],
    queryFn: () => ok(api.GET('/api/v1/charges/{code}', { params: { path: { code } } })),
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Charges
      </Anchor>
      <FormError error={charge.error} />
      {charge.data && (
        <>
          <Group gap="sm" wrap="wrap">
            <Title order={1} style={{ overflowWrap: 'anywhere' }}>
              {charge.data.code}
            </Title>
            <Badge variant="outline" tt="none">
              {CHARGE_TYPE_WORDS[charge.data.type] ?? charge.data.type}
            </Badge>
            <ChargeStatus charge={charge.data} />
          </Group>
          {charge.data.description && <Text c="dimmed">{charge.data.description}</Text>}
          <ChargeEditor key={charge.data.code} charge={charge.data} />
          <ChargePricing key={`pricing-${charge.data.code}`} charge={charge.data} />
        </>
      )}
    </Stack>
  )
}

/** Charges: the list, a new charge (its type and the fields that type needs), and a charge's page with its prices. */
export function Charges() {
  return (
    <div className="screen catalog">
      <Routes>
        <Route index element={<ChargeList />} />
        <Route path="new" element={<NewCharge />} />
        <Route path=":code" element={<ChargePage />} />
      </Routes>
    </div>
  )
}
