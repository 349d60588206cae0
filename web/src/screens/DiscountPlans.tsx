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
  NumberInput,
  Paper,
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
import { day, money } from '../format.ts'
import {
  FormError,
  ListSearch,
  fieldErrors,
  matches,
  optionsOf,
  useCatalogList,
  useCatalogRefresh,
  type Listed,
  MutationForm,
} from './catalog-shared.tsx'

type Plan = Listed<'discountPlans'>
type PlanType = NonNullable<Schemas['DiscountPlanInput']['discountPlanType']>
type Item = Schemas['DiscountPlanItem']
type ItemType = Schemas['DiscountPlanItemInput']['discountPlanItemType']

/** What a plan applies to, in words. */
const SCOPE_WORDS: Record<PlanType, string> = {
  OFFER: 'Offer lines (of the offers that list it)',
  PRODUCT: 'Product lines (of the products that link it)',
  QUOTE: 'A quote',
  INVOICE: 'A whole invoice',
  INVOICE_LINE: 'An invoice line',
  PROMO_CODE: 'A promo code',
}
const SCOPE_SHORT: Record<PlanType, string> = {
  OFFER: 'Offer lines',
  PRODUCT: 'Product lines',
  QUOTE: 'Quote',
  INVOICE: 'Invoice',
  INVOICE_LINE: 'Invoice line',
  PROMO_CODE: 'Promo code',
}

/** A plan's status as a person says it, and its colour. */
const STATUS: Record<string, { words: string; since: string; color: string }> = {
  DRAFT: { words: 'Draft: orders cannot use it yet', since: 'A draft', color: 'gray' },
  ACTIVE: { words: 'Active: orders may use it', since: 'Active', color: 'green' },
  IN_USE: { words: 'In use by orders', since: 'In use', color: 'blue' },
  EXPIRED: { words: 'Used up: no more orders', since: 'Used up', color: 'dark' },
}
/** Items change while the plan is a draft or active (the server's rule). */
const ITEMS_EDITABLE = new Set(['DRAFT', 'ACTIVE'])

function PlanStatus({ plan }: { plan: Plan }) {
  const status = STATUS[plan.status] ?? { words: plan.status.toLowerCase(), color: 'gray' }
  return (
    <Badge color={status.color} variant="light" tt="none" radius="sm" className="plan-status">
      {status.words}
    </Badge>
  )
}

/** An item's discount in words: `10 % off`, `5.00 off` (an amount in the order's currency). */
export function itemWords(item: { discountPlanItemType: string; discountValue: unknown }): string {
  const value = String(item.discountValue)
  return item.discountPlanItemType === 'PERCENTAGE' ? `${value} % off` : `${money(value)} off`
}

interface PlanForm {
  code: string
  description: string
  discountPlanType: PlanType | null
  automaticApplication: boolean
  /** Uses before the plan is used up; 0 or empty: no limit. */
  initialQuantity: string
  /** Lines discounted per subscription; 0 or empty: no limit. */
  applicationLimit: string
  sequence: string
}
const blank: PlanForm = {
  code: '',
  description: '',
  discountPlanType: 'OFFER',
  automaticApplication: false,
  initialQuantity: '',
  applicationLimit: '',
  sequence: '',
}
const formOf = (p: Plan): PlanForm => ({
  code: p.code,
  description: p.description ?? '',
  discountPlanType: p.discountPlanType,
  automaticApplication: p.automaticApplication,
  initialQuantity: p.initialQuantity ? String(p.initialQuantity) : '',
  applicationLimit: p.applicationLimit ? String(p.applicationLimit) : '',
  sequence: String(p.sequence),
})
const PLAN_FIELDS =
  /^(code|description|discountPlanType|automaticApplication|initialQuantity|applicationLimit|sequence)$/
const orNull = (value: string) => (value.trim() === '' ? null : value.trim())
const whole = (value: string) => (value.trim() === '' ? 0 : Number(value))

function planBody(form: PlanForm) {
  return {
    description: orNull(form.description),
    discountPlanType: form.discountPlanType,
    automaticApplication: form.automaticApplication,
    initialQuantity: whole(form.initialQuantity),
    applicationLimit: whole(form.applicationLimit),
    ...(form.sequence.trim() !== '' ? { sequence: Number(form.sequence) } : {}),
  }
}

function PlanFields({
  form,
  setForm,
  errors,
  creating,
}: {
  form: PlanForm
  setForm: (f: (form: PlanForm) => PlanForm) => void
  errors: Record<string, string>
  creating: boolean
}) {
  const set =
    <K extends keyof PlanForm>(key: K) =>
    (value: PlanForm[K]) =>
      setForm((f) => ({ ...f, [key]: value }))
  const count = (key: 'initialQuantity' | 'applicationLimit' | 'sequence') => ({
    value: form[key],
    onChange: (value: string | number) => set(key)(String(value)),
    error: errors[key],
    allowDecimal: false,
    allowNegative: false,
    w: 260,
    maw: '100%',
  })
  return (
    <Stack gap="sm">
      {creating && (
        <TextInput
          label="Code"
          withAsterisk
          value={form.code}
          onChange={(e) => set('code')(e.currentTarget.value)}
          error={errors.code}
          w={300}
          maw="100%"
        />
      )}
      <TextInput
        label="Description"
        description="The name orders and invoices show."
        value={form.description}
        onChange={(e) => set('description')(e.currentTarget.value)}
        error={errors.description}
        w={420}
        maw="100%"
      />
      <Select
        label="Applies to"
        data={Object.entries(SCOPE_WORDS).map(([value, label]) => ({ value, label }))}
        value={form.discountPlanType}
        onChange={(value) => set('discountPlanType')(value as PlanType | null)}
        error={errors.discountPlanType}
        placeholder="Not said"
        allowDeselect={false}
        clearable
        w={520}
        maw="100%"
      />
      <Checkbox
        label="Applied without being chosen, to every order of an offer that lists it"
        checked={form.automaticApplication}
        onChange={(e) => set('automaticApplication')(e.currentTarget.checked)}
      />
      <Group gap="sm" align="flex-start" wrap="wrap">
        <NumberInput
          label="Uses before it is used up"
          description="Orders that may use it; empty: no limit."
          {...count('initialQuantity')}
        />
        <NumberInput
          label="Lines per subscription"
          description="Lines it discounts; empty: every line."
          {...count('applicationLimit')}
        />
        <NumberInput label="Order among plans" description="Lowest applies first." {...count('sequence')} />
      </Group>
    </Stack>
  )
}

/** The moves the server allows a plan: a draft is activated (it needs an item); the others move by orders' use. */
function Moves({ plan, onMoved }: { plan: Plan; onMoved: (message: string) => void }) {
  const refresh = useCatalogRefresh()
  const activate = useMutation({
    mutationFn: () => ok(api.PUT('/api/v1/discountPlans/{code}/activate', { params: { path: { code: plan.code } } })),
    onSuccess: (moved) => {
      onMoved(`${moved.code} is now active: orders may use it.`)
      void refresh()
    },
  })
  if (plan.status !== 'DRAFT')
    return (
      <Text size="sm" c="dimmed">
        {plan.status === 'EXPIRED'
          ? 'Used up: its uses reached their limit.'
          : plan.status === 'IN_USE'
            ? 'Orders use it; it is used up when its uses reach their limit.'
            : 'Orders may use it; its first order puts it in use.'}
      </Text>
    )
  return (
    <Stack gap={4}>
      <Group gap={6} wrap="wrap">
        <Button
          size="compact-sm"
          variant="light"
          loading={activate.isPending}
          onClick={() => activate.mutate()}
          aria-label={`Activate: orders may use ${plan.code}`}
        >
          Activate
        </Button>
      </Group>
      <FormError error={activate.error} />
    </Stack>
  )
}

function PlanList() {
  const plans = useCatalogList('discountPlans')
  const [search, setSearch] = useState('')
  const [message, setMessage] = useState<string>()
  const all = plans.data?.data ?? []
  const shown = all.filter((p) => matches(search, p.code, p.description))
  const drafts = shown.some((p) => p.status === 'DRAFT')
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1} style={{ overflowWrap: 'anywhere' }}>
          Discount plans
        </Title>
        <Button component={Link} to="new">
          New discount plan
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        Reductions orders apply (a percentage or an amount off): offers and products list the plans their orders may
        choose.
      </Text>
      {message && (
        <Text role="status" c="green.8" fw={500}>
          {message}
        </Text>
      )}
      <FormError error={plans.error} />
      {plans.data && (
        <>
          {all.length > 0 && <ListSearch value={search} onChange={setSearch} label="Search the discount plans" />}
          {all.length === 0 && (
            <Text c="dimmed">No discount plan yet. Create one, give it an item, then activate it.</Text>
          )}
          {all.length > 0 && shown.length === 0 && <Text c="dimmed">No discount plan matches “{search.trim()}”.</Text>}
          {shown.length > 0 && (
            <Table.ScrollContainer minWidth={620}>
              <Table striped aria-label="Discount plans" verticalSpacing="xs">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Code</Table.Th>
                    <Table.Th>Description</Table.Th>
                    <Table.Th>Applies to</Table.Th>
                    <Table.Th>Status</Table.Th>
                    {drafts && <Table.Th>Moves</Table.Th>}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {shown.map((p) => (
                    <Table.Tr key={p.code} data-plan={p.code}>
                      <Table.Td>
                        <Anchor component={Link} to={encodeURIComponent(p.code)}>
                          {p.code}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{p.description}</Table.Td>
                      <Table.Td>{p.discountPlanType ? SCOPE_SHORT[p.discountPlanType] : '–'}</Table.Td>
                      <Table.Td>
                        <PlanStatus plan={p} />
                      </Table.Td>
                      {drafts && <Table.Td>{p.status === 'DRAFT' && <Moves plan={p} onMoved={setMessage} />}</Table.Td>}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
    </Stack>
  )
}

function NewPlan() {
  const [form, setForm] = useState<PlanForm>(blank)
  const navigate = useNavigate()
  const refresh = useCatalogRefresh()
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/discountPlans', { body: { code: form.code.trim(), ...planBody(form) } })),
    onSuccess: (created) => {
      void refresh()
      void navigate(`../${encodeURIComponent(created.code)}`, { relative: 'path' })
    },
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Discount plans
      </Anchor>
      <Title order={1} style={{ overflowWrap: 'anywhere' }}>
        New discount plan
      </Title>
      <MutationForm
        label="New discount plan"
        submit={() => create.mutate()}
        error={create.error}
        shows={(field) => PLAN_FIELDS.test(field)}
      >
        <PlanFields form={form} setForm={setForm} errors={fieldErrors(create.error)} creating />
        <Text size="sm" c="dimmed">
          A new plan is a draft: give it its items (what it takes off), then activate it.
        </Text>
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create the discount plan
          </Button>
        </Group>
      </MutationForm>
    </Stack>
  )
}

interface ItemForm {
  code: string
  description: string
  discountPlanItemType: ItemType
  discountValue: string
  accountingArticle: string | null
}
const blankItem: ItemForm = {
  code: '',
  description: '',
  discountPlanItemType: 'PERCENTAGE',
  discountValue: '',
  accountingArticle: null,
}
const ITEM_FIELDS = /^(code|description|discountPlanItemType|discountValue|accountingArticle)$/

/** The form of a new item, or of an item being changed (its code fixed). */
function ItemEditor({
  plan,
  item,
  onDone,
}: {
  plan: Plan
  item: Item | undefined
  onDone: (message: string | undefined) => void
}) {
  const articles = useCatalogList('accountingArticles').data?.data
  const refresh = useCatalogRefresh()
  const [form, setForm] = useState<ItemForm>(() =>
    item
      ? {
          code: item.code,
          description: item.description ?? '',
          discountPlanItemType: item.discountPlanItemType,
          discountValue: String(item.discountValue),
          accountingArticle: item.accountingArticle,
        }
      : blankItem,
  )
  const body = {
    description: orNull(form.description),
    discountPlanItemType: form.discountPlanItemType,
    discountValue: form.discountValue.trim(),
    accountingArticle: form.accountingArticle,
  }
  const save = useMutation({
    mutationFn: () =>
      item
        ? ok(
            api.PUT('/api/v1/discountPlans/{code}/items/{itemCode}', {
              params: { path: { code: plan.code, itemCode: item.code } },
              body,
            }),
          )
        : ok(
            api.POST('/api/v1/discountPlans/{code}/items', {
              params: { path: { code: plan.code } },
              body: { code: form.code.trim(), ...body },
            }),
          ),
    onSuccess: (saved) => {
      void refresh()
      if (!item) setForm(blankItem)
      onDone(`Item ${saved.code} saved: ${itemWords(saved)}.`)
    },
  })
  const errors = fieldErrors(save.error)
  const label = item ? `Item ${item.code}` : 'New item'
  return (
    <Paper
      withBorder
      p="sm"
      component="form"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault()
        save.mutate()
      }}
    >
      <Stack gap="sm">
        <Text size="sm" fw={600}>
          {item ? `Change item ${item.code}` : 'Add an item'}
        </Text>
        <FormError error={save.error} shows={(field) => ITEM_FIELDS.test(field)} />
        {!item && (
          <TextInput
            label="Item code"
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
        <Stack gap={4}>
          <Text size="sm" fw={500} id={`${label}-kind`}>
            Takes off
          </Text>
          <SegmentedControl
            aria-labelledby={`${label}-kind`}
            value={form.discountPlanItemType}
            onChange={(value) => setForm((f) => ({ ...f, discountPlanItemType: value }))}
            data={[
              { value: 'PERCENTAGE', label: 'A percentage' },
              { value: 'FIXED', label: 'An amount' },
            ]}
            w="fit-content"
            maw="100%"
          />
        </Stack>
        <TextInput
          label={form.discountPlanItemType === 'PERCENTAGE' ? 'Percentage off' : 'Amount off'}
          description={
            form.discountPlanItemType === 'PERCENTAGE'
              ? 'More than 0, at most 100.'
              : "In the order's currency, granted once per subscription."
          }
          withAsterisk
          inputMode="decimal"
          rightSection={form.discountPlanItemType === 'PERCENTAGE' ? '%' : undefined}
          value={form.discountValue}
          onChange={(e) => {
            const value = e.currentTarget.value
            setForm((f) => ({ ...f, discountValue: value }))
          }}
          error={errors.discountValue}
          w={200}
          maw="100%"
        />
        <Select
          label="Accounting article of the discount lines"
          description="An order refuses a plan whose item has none."
          data={optionsOf(articles)}
          value={form.accountingArticle}
          onChange={(value) => setForm((f) => ({ ...f, accountingArticle: value }))}
          error={errors.accountingArticle}
          searchable
          clearable
          w={360}
          maw="100%"
        />
        <TextInput
          label="Item description"
          value={form.description}
          onChange={(e) => {
            const value = e.currentTarget.value
            setForm((f) => ({ ...f, description: value }))
          }}
          error={errors.description}
          w={420}
          maw="100%"
        />
        <Group gap="sm">
          <Button type="submit" variant={item ? 'default' : 'light'} loading={save.isPending}>
            {item ? 'Save the item' : 'Add the item'}
          </Button>
          {item && (
            <Button variant="subtle" onClick={() => onDone(undefined)}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  )
}

/** A plan's items: what each takes off and the article its lines are booked to; changed while the plan allows it. */
function PlanItems({ plan, onMessage }: { plan: Plan; onMessage: (message: string | undefined) => void }) {
  const items = useQuery({
    queryKey: ['catalog', 'discountPlan', plan.code, 'items'],
    queryFn: () => ok(api.GET('/api/v1/discountPlans/{code}/items', { params: { path: { code: plan.code } } })),
  })
  const refresh = useCatalogRefresh()
  const [editing, setEditing] = useState<string>()
  const remove = useMutation({
    mutationFn: (itemCode: string) =>
      ok(
        api.DELETE('/api/v1/discountPlans/{code}/items/{itemCode}', {
          params: { path: { code: plan.code, itemCode } },
        }),
      ),
    onSuccess: (_, itemCode) => {
      onMessage(`Item ${itemCode} removed.`)
      void refresh()
    },
  })
  const editable = ITEMS_EDITABLE.has(plan.status)
  const list = items.data?.items ?? []
  const changing = list.find((i) => i.code === editing)
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Items
        </Title>
        <FormError error={items.error ?? remove.error} />
        {items.data && list.length === 0 && (
          <Text size="sm" c="dimmed">
            No item yet: a plan takes off what its items say, and is activated once it has one.
          </Text>
        )}
        {list.length > 0 && (
          <Table.ScrollContainer minWidth={480}>
            <Table aria-label={`Items of ${plan.code}`} verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Item</Table.Th>
                  <Table.Th>Takes off</Table.Th>
                  <Table.Th>Article</Table.Th>
                  {editable && (
                    <Table.Th>
                      <span className="visually-hidden">Actions</span>
                    </Table.Th>
                  )}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((i) => (
                  <Table.Tr key={i.code} data-item={i.code}>
                    <Table.Td>
                      <Text size="sm">{i.code}</Text>
                      {i.description && (
                        <Text size="xs" c="dimmed">
                          {i.description}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{itemWords(i)}</Table.Td>
                    <Table.Td>{i.accountingArticle ?? 'None yet'}</Table.Td>
                    {editable && (
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Button
                            size="compact-sm"
                            variant="subtle"
                            aria-label={`Change item ${i.code}`}
                            onClick={() => {
                              onMessage(undefined)
                              setEditing(i.code)
                            }}
                          >
                            Change
                          </Button>
                          <ActionIcon
                            variant="subtle"
                            color="red"
                            aria-label={`Remove item ${i.code}`}
                            loading={remove.isPending && remove.variables === i.code}
                            onClick={() => remove.mutate(i.code)}
                          >
                            ✕
                          </ActionIcon>
                        </Group>
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {!editable && (
          <Text size="sm" c="dimmed">
            Orders have used this plan up: its items can no longer change.
          </Text>
        )}
        {editable && changing && (
          <ItemEditor
            key={`edit-${changing.code}`}
            plan={plan}
            item={changing}
            onDone={(message) => {
              setEditing(undefined)
              onMessage(message)
            }}
          />
        )}
        {editable && !changing && <ItemEditor key="new" plan={plan} item={undefined} onDone={onMessage} />}
      </Stack>
    </Paper>
  )
}

function PlanPage() {
  const { code = '' } = useParams()
  const refresh = useCatalogRefresh()
  const [message, setMessage] = useState<string>()
  const plan = useQuery({
    queryKey: ['catalog', 'discountPlan', code],
    queryFn: () => ok(api.GET('/api/v1/discountPlans/{code}', { params: { path: { code } } })),
  })
  const [form, setForm] = useState<PlanForm>()
  const shown = form ?? (plan.data && formOf(plan.data))
  const update = useMutation({
    mutationFn: (f: PlanForm) =>
      ok(api.PUT('/api/v1/discountPlans/{code}', { params: { path: { code } }, body: planBody(f) })),
    onSuccess: () => {
      setForm(undefined)
      setMessage('Discount plan saved.')
      void refresh()
    },
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Discount plans
      </Anchor>
      <FormError error={plan.error} />
      {plan.data && shown && (
        <>
          <Group gap="sm" wrap="wrap">
            <Title order={1} style={{ overflowWrap: 'anywhere' }}>
              {plan.data.code}
            </Title>
            <PlanStatus plan={plan.data} />
          </Group>
          {plan.data.description && <Text c="dimmed">{plan.data.description}</Text>}
          {message && (
            <Text role="status" c="green.8" fw={500}>
              {message}
            </Text>
          )}
          <Paper withBorder p="sm">
            <Text size="sm" fw={600} mb={4}>
              Status
            </Text>
            <Text size="sm" mb={6}>
              {STATUS[plan.data.status]?.since ?? plan.data.status} since {day(plan.data.statusDate)}; created{' '}
              {day(plan.data.auditable.created)}. Used by {plan.data.usedQuantity}{' '}
              {plan.data.usedQuantity === 1 ? 'order' : 'orders'}
              {plan.data.initialQuantity > 0 ? ` of ${plan.data.initialQuantity}` : ''}.
            </Text>
            <Moves plan={plan.data} onMoved={setMessage} />
          </Paper>
          <MutationForm
            label="Discount plan"
            submit={() => update.mutate(shown)}
            error={update.error}
            shows={(field) => PLAN_FIELDS.test(field)}
          >
            <PlanFields
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
                Save the discount plan
              </Button>
            </Group>
          </MutationForm>
          <PlanItems key={plan.data.code} plan={plan.data} onMessage={setMessage} />
        </>
      )}
    </Stack>
  )
}

/** Discount plans: the list (searchable) with their statuses, a new plan, and a plan's page with its items. */
export function DiscountPlans() {
  return (
    <div className="screen catalog">
      <Routes>
        <Route index element={<PlanList />} />
        <Route path="new" element={<NewPlan />} />
        <Route path=":code" element={<PlanPage />} />
      </Routes>
    </div>
  )
}
