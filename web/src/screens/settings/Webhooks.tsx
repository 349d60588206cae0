import { useState, type SyntheticEvent } from 'react'
import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  MultiSelect,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, ok, type Schemas } from '../../client.ts'
import { ErrorMessage } from '../../components.tsx'
import { moment } from '../../format.ts'
import { Empty, StatusBadge } from '../billing/parts.tsx'

type Endpoint = Schemas['WebhookEndpoint']
type Delivery = Schemas['WebhookDelivery']

const ALL = '*'

/** The catalogue of event types an endpoint may subscribe to (from the server), `*` for all of them. */
function useEventTypes() {
  return useQuery({
    queryKey: ['webhook-event-types'],
    queryFn: async () => (await ok(api.GET('/api/v1/webhookEndpoints/eventTypes'))).eventTypes,
    staleTime: Infinity,
  })
}

/** A secret shown once: after creation or rotation, with a copy button; the server never shows it again. */
function SecretShownOnce({
  secret,
  onClose,
}: {
  secret: { endpoint: string; value: string } | undefined
  onClose: () => void
}) {
  return (
    <Modal opened={secret !== undefined} onClose={onClose} title="Signing secret" size="lg">
      {secret && (
        <Stack gap="sm">
          <Text size="sm">
            The secret of <strong>{secret.endpoint}</strong>. Copy it now into your receiver: it is shown only this
            once. Deliveries are signed with it (Standard Webhooks, HMAC-SHA256).
          </Text>
          <Code block data-testid="secret" className="webhook-secret">
            {secret.value}
          </Code>
          <Group justify="end">
            <CopyButton value={secret.value}>
              {({ copied, copy }) => (
                <Button variant="default" onClick={copy}>
                  {copied ? 'Copied' : 'Copy the secret'}
                </Button>
              )}
            </CopyButton>
            <Button onClick={onClose}>I have kept it</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  )
}

/** A new endpoint: its HTTPS URL, a description and the event types it receives. */
function NewEndpoint({ onCreated }: { onCreated: (endpoint: string, secret: string) => void }) {
  const types = useEventTypes()
  const client = useQueryClient()
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [eventTypes, setEventTypes] = useState<string[]>([])
  const create = useMutation({
    mutationFn: () =>
      ok(
        api.POST('/api/v1/webhookEndpoints', {
          body: { url: url.trim(), description: description.trim() || null, eventTypes },
        }),
      ),
    onSuccess: (endpoint) => {
      void client.invalidateQueries({ queryKey: ['webhook-endpoints'] })
      setUrl('')
      setDescription('')
      setEventTypes([])
      onCreated(endpoint.url, endpoint.secret)
    },
  })
  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    create.mutate()
  }
  const options = (types.data ?? []).map((t) => ({ value: t, label: t === ALL ? 'Every event (*)' : t }))
  return (
    <Paper withBorder p="md" component="form" aria-label="New endpoint" onSubmit={submit}>
      <Stack gap="sm">
        <Title order={2}>New endpoint</Title>
        <TextInput
          label="URL"
          description="HTTPS; a private or loopback address is refused unless the server allows private targets"
          placeholder="https://example.com/obol/webhooks"
          required
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
        />
        <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
        <MultiSelect
          label="Event types"
          description="What this endpoint receives"
          placeholder={eventTypes.length === 0 ? 'Choose event types' : undefined}
          data={options}
          value={eventTypes}
          onChange={setEventTypes}
          searchable
          required
          comboboxProps={{ withinPortal: true }}
        />
        <ErrorMessage error={types.error ?? create.error} />
        <Group>
          <Button type="submit" loading={create.isPending} disabled={url.trim() === '' || eventTypes.length === 0}>
            Create the endpoint
          </Button>
        </Group>
      </Stack>
    </Paper>
  )
}

/** The last answer of a delivery in words: the status code and the start of the body, or the error. */
function lastAnswer(delivery: Delivery): string {
  const last = delivery.attemptLog.at(-1)
  if (!last) return delivery.nextAttemptAt ? `Not tried yet (due ${moment(delivery.nextAttemptAt)})` : 'Not tried yet'
  if (last.error) return last.statusCode ? `${last.statusCode}: ${last.error}` : last.error
  const body = (last.response ?? '').trim()
  return `${last.statusCode ?? '–'}${body ? `: ${body.length > 80 ? `${body.slice(0, 80)}…` : body}` : ''}`
}

/** An endpoint's recent deliveries with their status, attempts and last answer; each can be sent again now. */
function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const client = useQueryClient()
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', endpoint.id],
    queryFn: () =>
      ok(
        api.GET('/api/v1/webhookEndpoints/{id}/deliveries', {
          params: { path: { id: endpoint.id }, query: { limit: 10 } },
        }),
      ),
    // Deliveries under way change on their own: read again every 2 s while one is.
    refetchInterval: (q) =>
      q.state.data?.data.some((d) => d.status === 'PENDING' || d.status === 'RETRYING') ? 2000 : false,
  })
  const retry = useMutation({
    mutationFn: (id: number) => ok(api.POST('/api/v1/webhookDeliveries/{id}/retry', { params: { path: { id } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['webhook-deliveries', endpoint.id] }),
  })
  const list = deliveries.data?.data ?? []
  return (
    <Stack gap="xs">
      <Title order={4}>Recent deliveries</Title>
      <ErrorMessage error={deliveries.error ?? retry.error} />
      {deliveries.data && list.length === 0 && <Empty>No deliveries yet. Send a test event to see one arrive.</Empty>}
      {list.length > 0 && (
        <Table.ScrollContainer minWidth={620}>
          <Table verticalSpacing={4} aria-label={`Deliveries to ${endpoint.url}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Event</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th ta="right">Attempts</Table.Th>
                <Table.Th>Last answer</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((d) => (
                <Table.Tr key={d.id} data-testid="delivery">
                  <Table.Td>
                    {d.eventType}
                    <Text size="xs" c="dimmed">
                      {moment(d.created)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={d.status} />
                    {d.status === 'RETRYING' && d.nextAttemptAt && (
                      <Text size="xs" c="dimmed">
                        next try {moment(d.nextAttemptAt)}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td ta="right">{d.attempts}</Table.Td>
                  <Table.Td className="answer">
                    <Text size="sm">{lastAnswer(d)}</Text>
                  </Table.Td>
                  <Table.Td>
                    {d.status !== 'SUCCEEDED' && (
                      <Button
                        size="compact-xs"
                        variant="default"
                        loading={retry.isPending && retry.variables === d.id}
                        onClick={() => retry.mutate(d.id)}
                        aria-label={`Send ${d.eventType} again now`}
                      >
                        Send again
                      </Button>
                    )}
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

/** `YYYY-MM-DDTHH:mm` of the browser's zone, for a datetime-local field. */
const localInput = (date: Date) => {
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
  return shifted.toISOString().slice(0, 16)
}

/** Events of a time range delivered again to one endpoint, with their own ids (a receiver drops duplicates). */
function Replay({ endpoint, onClose }: { endpoint: Endpoint | undefined; onClose: () => void }) {
  const client = useQueryClient()
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 3_600_000)))
  const [until, setUntil] = useState(() => localInput(new Date()))
  const [done, setDone] = useState<number>()
  const replay = useMutation({
    mutationFn: (id: number) =>
      ok(
        api.POST('/api/v1/webhookEndpoints/{id}/replay', {
          params: { path: { id } },
          body: {
            since: new Date(since).toISOString(),
            until: new Date(until).toISOString(),
            eventTypes: endpoint!.eventTypes,
          },
        }),
      ),
    onSuccess: (answer, id) => {
      setDone(answer.deliveries)
      void client.invalidateQueries({ queryKey: ['webhook-deliveries', id] })
    },
  })
  const close = () => {
    setDone(undefined)
    replay.reset()
    onClose()
  }
  return (
    <Modal opened={endpoint !== undefined} onClose={close} title="Replay events">
      {endpoint && (
        <Stack
          gap="sm"
          component="form"
          onSubmit={(e: SyntheticEvent) => {
            e.preventDefault()
            replay.mutate(endpoint.id)
          }}
        >
          <Text size="sm">
            The events of this time range that <strong>{endpoint.url}</strong> subscribes to are delivered to it again,
            with the same event ids. Events are kept 30 days.
          </Text>
          <TextInput
            label="From"
            type="datetime-local"
            value={since}
            onChange={(e) => setSince(e.currentTarget.value)}
            required
          />
          <TextInput
            label="To"
            type="datetime-local"
            value={until}
            onChange={(e) => setUntil(e.currentTarget.value)}
            required
          />
          <ErrorMessage error={replay.error} />
          {done !== undefined && (
            <Alert color="green" role="status">
              {done === 0
                ? 'No event of that range to deliver again.'
                : `${done} ${done === 1 ? 'delivery' : 'deliveries'} created again.`}
            </Alert>
          )}
          <Group justify="end">
            <Button variant="default" onClick={close}>
              Close
            </Button>
            <Button type="submit" loading={replay.isPending}>
              Replay
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  )
}

/** One endpoint: where it delivers, what it receives, whether it is active, its actions and its deliveries. */
function EndpointCard({
  endpoint,
  onSecret,
  onReplay,
}: {
  endpoint: Endpoint
  onSecret: (endpoint: string, secret: string) => void
  onReplay: (endpoint: Endpoint) => void
}) {
  const client = useQueryClient()
  const [sent, setSent] = useState<string>()
  const test = useMutation({
    mutationFn: () => ok(api.POST('/api/v1/webhookEndpoints/{id}/test', { params: { path: { id: endpoint.id } } })),
    onSuccess: (answer) => {
      setSent(answer.event)
      void client.invalidateQueries({ queryKey: ['webhook-deliveries', endpoint.id] })
    },
  })
  const rotate = useMutation({
    mutationFn: () =>
      ok(api.POST('/api/v1/webhookEndpoints/{id}/rotateSecret', { params: { path: { id: endpoint.id } } })),
    onSuccess: (answer) => onSecret(endpoint.url, answer.secret),
  })
  return (
    <Paper withBorder p="md" component="article" aria-label={`Endpoint ${endpoint.url}`}>
      <Stack gap="sm">
        <Group justify="space-between" align="start" wrap="wrap" gap="xs">
          <Stack gap={2} className="endpoint-head">
            <Text fw={600} className="url">
              {endpoint.url}
            </Text>
            {endpoint.description && (
              <Text size="sm" c="dimmed">
                {endpoint.description}
              </Text>
            )}
          </Stack>
          <Badge color={endpoint.active ? 'green' : 'red'} variant="light">
            {endpoint.active ? 'Active' : 'Disabled'}
          </Badge>
        </Group>
        {endpoint.disabledReason && (
          <Alert color="red" title="Disabled">
            {endpoint.disabledReason}
          </Alert>
        )}
        <Group gap={4} wrap="wrap" aria-label="Event types">
          {endpoint.eventTypes.map((t) => (
            <Badge key={t} variant="outline" color="gray" tt="none">
              {t === ALL ? 'every event' : t}
            </Badge>
          ))}
        </Group>
        <Group gap="xs" wrap="wrap">
          <Button size="xs" onClick={() => test.mutate()} loading={test.isPending}>
            Send a test event
          </Button>
          <Button size="xs" variant="default" onClick={() => rotate.mutate()} loading={rotate.isPending}>
            Rotate the secret
          </Button>
          <Button size="xs" variant="default" onClick={() => onReplay(endpoint)}>
            Replay a time range…
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          Rotating makes a new secret; the old one keeps signing beside it for 24 hours, so the receiver can switch.
        </Text>
        {sent && (
          <Text size="sm" role="status">
            Test event {sent} sent.
          </Text>
        )}
        <ErrorMessage error={test.error ?? rotate.error} />
        <Deliveries endpoint={endpoint} />
      </Stack>
    </Paper>
  )
}

/** Webhook endpoints: the HTTPS addresses Obol delivers its events to, signed, retried and replayable. */
export function Webhooks() {
  const endpoints = useQuery({
    queryKey: ['webhook-endpoints'],
    queryFn: () => ok(api.GET('/api/v1/webhookEndpoints')),
  })
  const [secret, setSecret] = useState<{ endpoint: string; value: string }>()
  const [replaying, setReplaying] = useState<Endpoint>()
  const shown = (endpoint: string, value: string) => setSecret({ endpoint, value })
  return (
    <div className="screen webhooks">
      <Stack gap="lg">
        <Title order={1}>Webhooks</Title>
        <Text size="sm">
          Obol posts each event it records (an invoice validated, a wallet credited, an order created…) to the endpoints
          that subscribe to it, signed by the Standard Webhooks scheme, and tries again on a schedule when an endpoint
          does not answer 2xx.
        </Text>
        <ErrorMessage error={endpoints.error} />
        {endpoints.data &&
          (endpoints.data.data.length === 0 ? (
            <Empty>No endpoints yet. Create one below to receive events.</Empty>
          ) : (
            <Stack gap="md">
              {endpoints.data.data.map((e) => (
                <EndpointCard key={e.id} endpoint={e} onSecret={shown} onReplay={setReplaying} />
              ))}
            </Stack>
          ))}
        <NewEndpoint onCreated={shown} />
      </Stack>
      <SecretShownOnce secret={secret} onClose={() => setSecret(undefined)} />
      <Replay endpoint={replaying} onClose={() => setReplaying(undefined)} />
    </div>
  )
}
