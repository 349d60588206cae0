import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import { useMutation, useQuery } from '@tanstack/react-query'
import {
  Anchor,
  Badge,
  Button,
  CloseButton,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import type { Got } from '../client.ts'
import { api, ok } from '../client.ts'
import { day } from '../format.ts'
import {
  CHARGE_TYPE_WORDS,
  FormError,
  StateBadge,
  fieldErrors,
  optionsOf,
  useCatalogList,
  useCatalogRefresh,
  useTenantToday,
  versionState,
  MutationForm,
} from './catalog-shared.tsx'

type Version = Got<'/api/v1/products/{code}/versions'>['versions'][number]

function ProductList() {
  const products = useCatalogList('products')
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1} style={{ overflowWrap: 'anywhere' }}>
          Products
        </Title>
        <Button component={Link} to="new">
          New product
        </Button>
      </Group>
      <FormError error={products.error} />
      {products.data && (
        <Table.ScrollContainer minWidth={520}>
          <Table striped highlightOnHover aria-label="Products">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Code</Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Product line</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {products.data.data.map((p) => (
                <Table.Tr key={p.code}>
                  <Table.Td>
                    <Anchor component={Link} to={encodeURIComponent(p.code)}>
                      {p.code}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{p.name}</Table.Td>
                  <Table.Td>{p.description}</Table.Td>
                  <Table.Td>{p.productLine}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  )
}

interface ProductForm {
  code: string
  name: string
  description: string
  productLine: string
}
const PRODUCT_FIELDS = { code: 1, name: 1, description: 1, productLine: 1 }
const orNull = (value: string) => (value.trim() === '' ? null : value.trim())

function ProductFields({
  form,
  setForm,
  errors,
  creating,
}: {
  form: ProductForm
  setForm: (f: (form: ProductForm) => ProductForm) => void
  errors: Record<string, string>
  creating: boolean
}) {
  const field = (key: keyof ProductForm, label: string) => (
    <TextInput
      label={label}
      withAsterisk={key === 'code'}
      value={form[key]}
      onChange={(e) => {
        const value = e.currentTarget.value
        setForm((f) => ({ ...f, [key]: value }))
      }}
      error={errors[key]}
      w={key === 'description' ? 420 : 260}
      maw="100%"
    />
  )
  return (
    <Stack gap="sm">
      {creating && field('code', 'Code')}
      <Group gap="sm" align="flex-start" wrap="wrap">
        {field('name', 'Name')}
        {field('productLine', 'Product line')}
      </Group>
      {field('description', 'Description')}
    </Stack>
  )
}

function NewProduct() {
  const [form, setForm] = useState<ProductForm>({ code: '', name: '', description: '', productLine: '' })
  const navigate = useNavigate()
  const refresh = useCatalogRefresh()
  const create = useMutation({
    mutationFn: async () => {
      const product = await ok(
        api.POST('/api/v1/products', {
          body: {
            code: form.code.trim(),
            name: orNull(form.name),
            description: orNull(form.description),
            productLine: orNull(form.productLine),
          },
        }),
      )
      // A product is sold through its versions: the first draft version comes with it.
      await ok(
        api.POST('/api/v1/products/{code}/versions', {
          params: { path: { code: product.code } },
          body: { shortDescription: 'First version' },
        }),
      )
      return product
    },
    onSuccess: (product) => {
      void refresh()
      void navigate(`../${encodeURIComponent(product.code)}`, { relative: 'path' })
    },
  })
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Products
      </Anchor>
      <Title order={1} style={{ overflowWrap: 'anywhere' }}>
        New product
      </Title>
      <MutationForm
        label="New product"
        submit={() => create.mutate()}
        error={create.error}
        shows={(field) => field in PRODUCT_FIELDS}
      >
        <ProductFields form={form} setForm={setForm} errors={fieldErrors(create.error)} creating />
        <Text size="sm" c="dimmed">
          A draft version 1 is created with it: link its charges and attributes, then publish it.
        </Text>
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create the product
          </Button>
        </Group>
      </MutationForm>
    </Stack>
  )
}

/** Links of a version (its charges or its attributes): removable and addable while the version is a draft. */
function Links({
  title,
  noun,
  codes,
  options,
  editable,
  describe,
  add,
  remove,
}: {
  title: string
  noun: string
  codes: string[]
  options: { value: string; label: string }[]
  editable: boolean
  describe: (code: string) => string
  add: (code: string) => void
  remove: (code: string) => void
}) {
  const [chosen, setChosen] = useState<string | null>(null)
  const left = options.filter((o) => !codes.includes(o.value))
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {title}
      </Text>
      {codes.length === 0 && (
        <Text size="sm" c="dimmed">
          None yet.
        </Text>
      )}
      <Group gap={6} wrap="wrap">
        {codes.map((code) => (
          <Badge
            key={code}
            variant="light"
            tt="none"
            size="lg"
            radius="sm"
            rightSection={
              editable ? (
                <CloseButton size="xs" aria-label={`Unlink ${code}`} onClick={() => remove(code)} />
              ) : undefined
            }
          >
            {describe(code)}
          </Badge>
        ))}
      </Group>
      {editable && (
        <Group gap="xs" align="flex-end" wrap="wrap">
          <Select
            aria-label={`${/^[aeiou]/.test(noun) ? 'An' : 'A'} ${noun} to link`}
            placeholder={`Choose ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}…`}
            data={left}
            value={chosen}
            onChange={setChosen}
            searchable
            w={300}
            maw="100%"
          />
          <Button
            variant="light"
            disabled={!chosen}
            onClick={() => {
              if (chosen) add(chosen)
              setChosen(null)
            }}
          >
            Link the {noun}
          </Button>
        </Group>
      )}
    </Stack>
  )
}

function VersionCard({ productCode, version, today }: { productCode: string; version: Version; today: string }) {
  const charges = useCatalogList('charges').data?.data ?? []
  const attributes = useCatalogList('attributes').data?.data ?? []
  const refresh = useCatalogRefresh()
  const draft = version.status === 'DRAFT'
  const [validFrom, setValidFrom] = useState(version.validFrom ?? '')
  const [shortDescription, setShortDescription] = useState(version.shortDescription ?? '')
  const [confirming, setConfirming] = useState(false)
  const path = { code: productCode, version: version.version }
  const change = useMutation({
    mutationFn: async (write: () => Promise<unknown>) => write(),
    onSuccess: () => void refresh(),
  })
  const save = () =>
    ok(
      api.PUT('/api/v1/products/{code}/versions/{version}', {
        params: { path },
        body: { validFrom: validFrom || null, shortDescription: orNull(shortDescription) },
      }),
    )
  const publish = () =>
    change.mutate(async () => {
      await save()
      await ok(
        api.PUT('/api/v1/products/{code}/versions/{version}/status', {
          params: { path, query: { status: 'PUBLISHED' } },
        }),
      )
      setConfirming(false)
    })
  const chargeWords = (code: string) => {
    const c = charges.find((x) => x.code === code)
    return c ? `${code} · ${CHARGE_TYPE_WORDS[c.type] ?? c.type}` : code
  }
  const errors = fieldErrors(change.error)

  return (
    <Paper withBorder p="md" component="li" aria-label={`Version ${version.version}`}>
      <Stack gap="sm">
        <Group gap="xs" wrap="wrap">
          <Text fw={600}>Version {version.version}</Text>
          <StateBadge state={versionState(version, today)} />
          {!draft && version.shortDescription && <Text c="dimmed">{version.shortDescription}</Text>}
        </Group>
        <FormError error={change.error} />
        {draft && (
          <Group gap="sm" align="flex-start" wrap="wrap">
            <TextInput
              label="Short description"
              value={shortDescription}
              onChange={(e) => setShortDescription(e.currentTarget.value)}
              error={errors.shortDescription}
              w={300}
              maw="100%"
            />
            <TextInput
              label="Valid from"
              type="date"
              value={validFrom}
              onChange={(e) => setValidFrom(e.currentTarget.value)}
              description="Empty: the day it is published"
              error={errors.validFrom}
              w={190}
            />
          </Group>
        )}
        {!draft && (
          <Text size="sm">
            From {version.validFrom ? day(version.validFrom) : 'the start'}
            {version.validTo ? ` until ${day(version.validTo)}` : ', open-ended'}
          </Text>
        )}
        <Links
          title="Charges"
          noun="charge"
          codes={version.charges}
          options={optionsOf(charges)}
          editable={draft}
          describe={chargeWords}
          add={(chargeCode) =>
            change.mutate(() =>
              ok(
                api.POST('/api/v1/products/{code}/versions/{version}/charges/{chargeCode}', {
                  params: { path: { ...path, chargeCode } },
                  body: {},
                }),
              ),
            )
          }
          remove={(chargeCode) =>
            change.mutate(() =>
              ok(
                api.DELETE('/api/v1/products/{code}/versions/{version}/charges/{chargeCode}', {
                  params: { path: { ...path, chargeCode } },
                }),
              ),
            )
          }
        />
        <Links
          title="Attributes (asked when ordering)"
          noun="attribute"
          codes={version.attributes}
          options={optionsOf(attributes)}
          editable={draft}
          describe={(code) => {
            const a = attributes.find((x) => x.code === code)
            return a?.description ? `${code} · ${a.description}` : code
          }}
          add={(attributeCode) =>
            change.mutate(() =>
              ok(
                api.POST('/api/v1/products/{code}/versions/{version}/attributes/{attributeCode}', {
                  params: { path: { ...path, attributeCode } },
                  body: {},
                }),
              ),
            )
          }
          remove={(attributeCode) =>
            change.mutate(() =>
              ok(
                api.DELETE('/api/v1/products/{code}/versions/{version}/attributes/{attributeCode}', {
                  params: { path: { ...path, attributeCode } },
                }),
              ),
            )
          }
        />
        {draft && (
          <Group gap="xs">
            <Button variant="default" loading={change.isPending} onClick={() => change.mutate(save)}>
              Save version {version.version}
            </Button>
            <Button onClick={() => setConfirming(true)} disabled={confirming}>
              Publish version {version.version}…
            </Button>
          </Group>
        )}
        {confirming && (
          <Paper withBorder p="sm" bg="yellow.0" role="alertdialog" aria-labelledby={`publish-${version.version}`}>
            <Text id={`publish-${version.version}`}>
              Publish version {version.version} of {productCode} from {validFrom ? day(validFrom) : 'today'}? Orders
              from then use its charges and attributes; the version before it ends that day.
            </Text>
            <Group gap="xs" mt="xs">
              <Button data-autofocus loading={change.isPending} onClick={publish}>
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
  )
}

function ProductPage() {
  const { code = '' } = useParams()
  const today = useTenantToday()
  const refresh = useCatalogRefresh()
  const product = useQuery({
    queryKey: ['catalog', 'product', code],
    queryFn: () => ok(api.GET('/api/v1/products/{code}', { params: { path: { code } } })),
  })
  const versions = useQuery({
    queryKey: ['catalog', 'productVersions', code],
    queryFn: () => ok(api.GET('/api/v1/products/{code}/versions', { params: { path: { code } } })),
  })
  const [form, setForm] = useState<ProductForm>()
  const shown: ProductForm | undefined =
    form ??
    (product.data && {
      code: product.data.code,
      name: product.data.name ?? '',
      description: product.data.description ?? '',
      productLine: product.data.productLine ?? '',
    })
  const update = useMutation({
    mutationFn: (f: ProductForm) =>
      ok(
        api.PUT('/api/v1/products/{code}', {
          params: { path: { code } },
          body: { name: orNull(f.name), description: orNull(f.description), productLine: orNull(f.productLine) },
        }),
      ),
    onSuccess: () => void refresh(),
  })
  const list = versions.data?.versions ?? []
  const latest = [...list].sort((a, b) => b.version - a.version)[0]
  const newVersion = useMutation({
    // A new version starts with the links of the latest one, to change from there.
    mutationFn: async () => {
      const created = await ok(api.POST('/api/v1/products/{code}/versions', { params: { path: { code } }, body: {} }))
      const path = { code, version: created.version }
      for (const chargeCode of latest?.charges ?? [])
        await ok(
          api.POST('/api/v1/products/{code}/versions/{version}/charges/{chargeCode}', {
            params: { path: { ...path, chargeCode } },
            body: {},
          }),
        )
      for (const attributeCode of latest?.attributes ?? [])
        await ok(
          api.POST('/api/v1/products/{code}/versions/{version}/attributes/{attributeCode}', {
            params: { path: { ...path, attributeCode } },
            body: {},
          }),
        )
    },
    onSuccess: () => void refresh(),
  })
  const hasDraft = list.some((v) => v.status === 'DRAFT')

  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        ← Products
      </Anchor>
      <FormError error={product.error ?? versions.error} />
      {product.data && shown && (
        <>
          <Title order={1} style={{ overflowWrap: 'anywhere' }}>
            {product.data.code}
          </Title>
          {product.data.name && <Text c="dimmed">{product.data.name}</Text>}
          <MutationForm
            label="Product"
            submit={() => update.mutate(shown)}
            error={update.error}
            shows={(field) => field in PRODUCT_FIELDS}
          >
            <ProductFields
              form={shown}
              setForm={(f) => setForm(f(shown))}
              errors={fieldErrors(update.error)}
              creating={false}
            />
            <Group>
              <Button type="submit" variant="default" loading={update.isPending}>
                Save the product
              </Button>
              {update.isSuccess && !form && (
                <Text role="status" size="sm" c="green.8">
                  Product saved.
                </Text>
              )}
            </Group>
          </MutationForm>
          <Group justify="space-between">
            <Title order={2}>Versions</Title>
            {!hasDraft && (
              <Button variant="light" loading={newVersion.isPending} onClick={() => newVersion.mutate()}>
                {latest ? `New version from version ${latest.version}` : 'New version'}
              </Button>
            )}
          </Group>
          <FormError error={newVersion.error} />
          <Stack
            gap="sm"
            renderRoot={(props) => <ol {...props} />}
            className="versions"
            style={{ listStyle: 'none', padding: 0, margin: 0 }}
            aria-label="Product versions"
          >
            {today &&
              [...list]
                .sort((a, b) => b.version - a.version)
                .map((v) => (
                  <VersionCard key={`${v.version}-${v.status}`} productCode={code} version={v} today={today} />
                ))}
          </Stack>
        </>
      )}
    </Stack>
  )
}

/** Products: the list, a new product, and a product's page with its versions (links, publication). */
export function Products() {
  return (
    <div className="screen catalog">
      <Routes>
        <Route index element={<ProductList />} />
        <Route path="new" element={<NewProduct />} />
        <Route path=":code" element={<ProductPage />} />
      </Routes>
    </div>
  )
}
