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
  FormError,
  ListSearch,
  fieldErrors,
  matches,
  useCatalogList,
  useCatalogRefresh,
  type Listed,
  MutationForm,
} from './catalog-shared.tsx'

type Attribute = Listed<'attributes'>
type AttributeType = Schemas['AttributeInput']['attributeType']

/** Each type in words, and what an order line gives for it. */
export const ATTRIBUTE_TYPE_WORDS: Record<AttributeType, string> = {
  LIST_TEXT: 'One of a list of texts',
  LIST_MULTIPLE_TEXT: 'Several of a list of texts',
  LIST_NUMERIC: 'One of a list of numbers',
  TEXT: 'Free text',
  NUMERIC: 'Number',
  INTEGER: 'Whole number',
  BOOLEAN: 'Yes or no',
  DATE: 'Date',
  EMAIL: 'Email address',
  PHONE: 'Phone number',
}
const LIST_TYPES = new Set<AttributeType>(['LIST_TEXT', 'LIST_MULTIPLE_TEXT', 'LIST_NUMERIC'])

interface AttributeForm {
  code: string
  description: string
  attributeType: AttributeType
  /** The allowed values of a list type, one field each (a refusal names `allowedValues[1]`). */
  allowedValues: string[]
  /** The decimals of a NUMERIC value, as typed. */
  unitNbDecimal: string
  disabled: boolean
}

const blank: AttributeForm = {
  code: '',
  description: '',
  attributeType: 'LIST_TEXT',
  allowedValues: [''],
  unitNbDecimal: '2',
  disabled: false,
}

const formOf = (a: Attribute): AttributeForm => ({
  code: a.code,
  description: a.description ?? '',
  attributeType: a.attributeType,
  allowedValues: a.allowedValues.length > 0 ? [...a.allowedValues] : [''],
  unitNbDecimal: String(a.unitNbDecimal),
  disabled: a.disabled,
})

const ATTRIBUTE_FIELDS = /^(code|description|attributeType|allowedValues(\[\d+\])?|unitNbDecimal|disabled)$/
/** Whether the form shows a field the server names: the allowed values only for a list type, decimals for a number. */
const showsField = (form: AttributeForm) => (field: string) =>
  ATTRIBUTE_FIELDS.test(field) &&
  (!field.startsWith('allowedValues') || LIST_TYPES.has(form.attributeType)) &&
  (field !== 'unitNbDecimal' || form.attributeType === 'NUMERIC')
const orNull = (value: string) => (value.trim() === '' ? null : value.trim())

/** The body of a create or an update: a list type sends its values (empty fields left out), the others none. */
function fieldsOf(form: AttributeForm) {
  const list = LIST_TYPES.has(form.attributeType)
  return {
    description: orNull(form.description),
    attributeType: form.attributeType,
    allowedValues: list ? form.allowedValues.map((v) => v.trim()).filter((v) => v !== '') : [],
    ...(form.attributeType === 'NUMERIC' && form.unitNbDecimal.trim() !== ''
      ? { unitNbDecimal: Number(form.unitNbDecimal) }
      : {}),
    disabled: form.disabled,
  }
}

/** The attribute's fields: its type, and the values a list type allows or the decimals a number keeps. */
function AttributeFields({
  form,
  setForm,
  errors,
  creating,
}: {
  form: AttributeForm
  setForm: (f: (form: AttributeForm) => AttributeForm) => void
  errors: Record<string, string>
  creating: boolean
}) {
  const list = LIST_TYPES.has(form.attributeType)
  const setValue = (i: number, value: string) =>
    setForm((f) => ({ ...f, allowedValues: f.allowedValues.map((v, j) => (j === i ? value : v)) }))
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
        label="Description"
        description="Shown as the label of the attribute's column in a price matrix."
        value={form.description}
        onChange={(e) => {
          const value = e.currentTarget.value
          setForm((f) => ({ ...f, description: value }))
        }}
        error={errors.description}
        w={420}
        maw="100%"
      />
      <Select
        label="Type"
        withAsterisk
        data={Object.entries(ATTRIBUTE_TYPE_WORDS).map(([value, label]) => ({ value, label }))}
        value={form.attributeType}
        allowDeselect={false}
        onChange={(value) => value && setForm((f) => ({ ...f, attributeType: value as AttributeType }))}
        error={errors.attributeType}
        w={300}
        maw="100%"
      />
      {list && (
        <Stack gap={4} role="group" aria-labelledby="allowed-values">
          <Text size="sm" fw={600} id="allowed-values">
            Allowed values
          </Text>
          <Text size="xs" c="dimmed">
            {form.attributeType === 'LIST_NUMERIC'
              ? 'The numbers an order line may choose, one per field.'
              : 'The texts an order line may choose, one per field.'}
          </Text>
          {form.allowedValues.map((value, i) => (
            <Group key={i} gap="xs" align="flex-start" wrap="nowrap">
              <TextInput
                aria-label={`Allowed value ${i + 1}`}
                inputMode={form.attributeType === 'LIST_NUMERIC' ? 'decimal' : undefined}
                value={value}
                onChange={(e) => setValue(i, e.currentTarget.value)}
                error={errors[`allowedValues[${i}]`]}
                w={300}
                maw="calc(100% - 2.5rem)"
              />
              <ActionIcon
                variant="subtle"
                color="red"
                mt={4}
                aria-label={`Remove allowed value ${i + 1}`}
                disabled={form.allowedValues.length === 1}
                onClick={() => setForm((f) => ({ ...f, allowedValues: f.allowedValues.filter((_, j) => j !== i) }))}
              >
                ✕
              </ActionIcon>
            </Group>
          ))}
          {errors.allowedValues && (
            <Text size="sm" c="red">
              {errors.allowedValues}
            </Text>
          )}
          <Group>
            <Button
              variant="light"
              size="compact-sm"
              onClick={() => setForm((f) => ({ ...f, allowedValues: [...f.allowedValues, ''] }))}
            >
              Add a value
            </Button>
          </Group>
        </Stack>
      )}
      {form.attributeType === 'NUMERIC' && (
        <NumberInput
          label="Decimals kept"
          description="The digits after the point a value of this attribute keeps (0 to 12)."
          value={form.unitNbDecimal}
          onChange={(value) => setForm((f) => ({ ...f, unitNbDecimal: String(value) }))}
          error={errors.unitNbDecimal}
          allowDecimal={false}
          allowNegative={false}
          w={200}
          maw="100%"
        />
      )}
      {!creating && (
        <Checkbox
          label="Disabled: no new product version or order line uses it"
          checked={form.disabled}
          onChange={(e) => {
            const checked = e.currentTarget.checked
            setForm((f) => ({ ...f, disabled: checked }))
          }}
        />
      )}
    </Stack>
  )
}

/** What a list type allows, or the type in words. */
function typeSummary(a: Attribute): string {
  const words = ATTRIBUTE_TYPE_WORDS[a.attributeType] ?? a.attributeType
  return LIST_TYPES.has(a.attributeType) && a.allowedValues.length > 0
    ? `${words}: ${a.allowedValues.join(', ')}`
    : words
}

function AttributeList() {
  const attributes = useCatalogList('attributes')
  const [search, setSearch] = useState('')
  const all = attributes.data?.data ?? []
  const shown = all.filter((a) => matches(search, a.code, a.description, ...a.allowedValues))
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1} style={{ overflowWrap: 'anywhere' }}>
          Attributes
        </Title>
        <Button component={Link} to="new">
          New attribute
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        What an order line tells about a product (a region, a speed): products link them, price matrices price by them.
      </Text>
      <FormError error={attributes.error} />
      {attributes.data && (
        <>
          {all.length > 0 && <ListSearch value={search} onChange={setSearch} label="Search the attributes" />}
          {all.length === 0 && <Text c="dimmed">No attribute yet. Create one, then link it to a product version.</Text>}
          {all.length > 0 && shown.length === 0 && <Text c="dimmed">No attribute matches “{search.trim()}”.</Text>}
          {shown.length > 0 && (
            <Table.ScrollContainer minWidth={520}>
              <Table striped highlightOnHover aria-label="Attributes">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Code</Table.Th>
                    <Table.Th>Description</Table.Th>
                    <Table.Th>Type</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {shown.map((a) => (
                    <Table.Tr key={a.code}>
                      <Table.Td>
                        <Anchor component={Link} to={encodeURIComponent(a.code)}>
                          {a.code}
                        </Anchor>
                        {a.disabled && (
                          <Badge color="gray" variant="light" tt="none" ml={6}>
                            Disabled
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>{a.description}</Table.Td>
                      <Table.Td>{typeSummary(a)}</Table.Td>
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

function NewAttribute() {
  const [form, setForm] = useState<AttributeForm>(blank)
  const navigate = useNavigate()
  const refresh = useCatalogRefresh()
  const create = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/attributes', { body: { code: form.code.trim(), ...fieldsOf(form) } })),
    onSuccess: (created) => {
      void refresh()
      void navigate(`../${encodeURIComponent(created.code)}`, { relative: 'path' })
    },
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Attributes
      </Anchor>
      <Title order={1} style={{ overflowWrap: 'anywhere' }}>
        New attribute
      </Title>
      <MutationForm label="New attribute" submit={() => create.mutate()} error={create.error} shows={showsField(form)}>
        <AttributeFields form={form} setForm={setForm} errors={fieldErrors(create.error)} creating />
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create the attribute
          </Button>
        </Group>
      </MutationForm>
    </Stack>
  )
}

function AttributeEditor({ attribute }: { attribute: Attribute }) {
  const [form, setForm] = useState<AttributeForm>(() => formOf(attribute))
  const [saved, setSaved] = useState(false)
  const refresh = useCatalogRefresh()
  const update = useMutation({
    mutationFn: () =>
      ok(api.PUT('/api/v1/attributes/{code}', { params: { path: { code: attribute.code } }, body: fieldsOf(form) })),
    onSuccess: () => {
      setSaved(true)
      void refresh()
    },
  })
  return (
    <MutationForm label="Attribute" submit={() => update.mutate()} error={update.error} shows={showsField(form)}>
      <AttributeFields
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
          Save the attribute
        </Button>
        {saved && (
          <Text role="status" c="green.8" size="sm">
            Attribute saved.
          </Text>
        )}
      </Group>
    </MutationForm>
  )
}

function AttributePage() {
  const { code = '' } = useParams()
  const attribute = useQuery({
    queryKey: ['catalog', 'attribute', code],
    queryFn: () => ok(api.GET('/api/v1/attributes/{code}', { params: { path: { code } } })),
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Attributes
      </Anchor>
      <FormError error={attribute.error} />
      {attribute.data && (
        <>
          <Group gap="sm" wrap="wrap">
            <Title order={1} style={{ overflowWrap: 'anywhere' }}>
              {attribute.data.code}
            </Title>
            <Badge variant="outline" tt="none">
              {ATTRIBUTE_TYPE_WORDS[attribute.data.attributeType] ?? attribute.data.attributeType}
            </Badge>
            {attribute.data.disabled && (
              <Badge color="gray" variant="light" tt="none">
                Disabled
              </Badge>
            )}
          </Group>
          {attribute.data.description && <Text c="dimmed">{attribute.data.description}</Text>}
          <AttributeEditor key={attribute.data.code} attribute={attribute.data} />
        </>
      )}
    </Stack>
  )
}

/** Attributes: the list (searchable), a new attribute (its type and the values or decimals it needs), its page. */
export function Attributes() {
  return (
    <div className="screen catalog">
      <Routes>
        <Route index element={<AttributeList />} />
        <Route path="new" element={<NewAttribute />} />
        <Route path=":code" element={<AttributePage />} />
      </Routes>
    </div>
  )
}
