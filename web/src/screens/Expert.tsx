import { useCallback, useEffect, useMemo, useState } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { Alert, Badge, Box, Button, Group, Paper, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core'
import { api, ok, type Got } from '../client.ts'
import { ErrorMessage, Notice } from '../components.tsx'
import { SavedQueries } from '../SavedQueries.tsx'
import { errorMark, HqlEditor } from '../HqlEditor.tsx'
import type { SQLNamespace } from '@codemirror/lang-sql'

type Execution = Got<'/api/v1/workbench/expert/executions/{id}'>

const FIRST_QUERY = 'select code, name from customer order by code'
/** A running run's record is read again every second: its status, elapsed time and rows so far. */
const POLL_MS = 1000
const RUN_KEY = (id: number | undefined) => ['expert-run', id] as const
const RUNS_KEY = ['expert-runs'] as const

const STATUS_WORDS: Record<string, string> = {
  SUCCESS: 'Done',
  FAILED: 'Failed',
  TIMEOUT: 'Timed out',
  CANCELLED: 'Cancelled',
}
const statusWord = (e: Execution) => (e.status === null ? 'Running' : (STATUS_WORDS[e.status] ?? e.status))
const count = (n: number) => n.toLocaleString('en-US')

/** A run just accepted, shown at once while its record is read. */
function acceptedRun(id: number, text: string): Execution {
  return {
    id,
    status: null,
    startDate: new Date().toISOString(),
    endDate: null,
    lineCount: null,
    durationMs: null,
    filePath: null,
    queryHash: '',
    queryText: text,
    username: '',
    errorMessage: null,
    savedQueryCode: null,
    rowsSoFar: null,
    truncated: false,
    truncatedMessage: null,
  }
}

/** Seconds as a person reads them: "0.04 s", "12 s", "2 min 5 s". */
function seconds(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`
  const s = Math.round(ms / 1000)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`
}
const elapsed = (e: Execution, now: number) =>
  seconds(e.durationMs ?? (e.endDate ? Date.parse(e.endDate) : now) - Date.parse(e.startDate))

/** Fetches the CSV with the bearer token, then hands it to the browser as a file download. */
async function download(id: number): Promise<void> {
  const csv = await ok(
    api.GET('/api/v1/workbench/expert/executions/{id}/file', { params: { path: { id } }, parseAs: 'blob' }),
  )
  const url = URL.createObjectURL(csv)
  const link = document.createElement('a')
  link.href = url
  link.download = `expert-${id}.csv`
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

const STATUS_COLORS: Record<string, string> = {
  SUCCESS: 'green',
  FAILED: 'red',
  TIMEOUT: 'orange',
  CANCELLED: 'gray',
}
/** A run's lines as a phone shows them under its status: "50 lines", "1,000 lines (cap)", "5,086 rows so far". */
function linesInWords(e: Execution): string {
  if (e.lineCount !== null)
    return `${count(e.lineCount)} ${e.lineCount === 1 ? 'line' : 'lines'}${e.truncated ? ' (cap)' : ''}`
  return e.rowsSoFar === null ? '' : `${count(e.rowsSoFar)} rows so far`
}

/** The run's state as a coloured word: blue while it runs. */
function StatusBadge({ run }: { run: Execution }) {
  return (
    <Badge
      component="span"
      variant="light"
      tt="none"
      size="md"
      color={run.status === null ? 'blue' : (STATUS_COLORS[run.status] ?? 'gray')}
      style={{ verticalAlign: 'baseline' }}
      // The word is never cut to "Do…" in a narrow column.
      styles={{ label: { overflow: 'visible' } }}
    >
      {statusWord(run)}
    </Badge>
  )
}

/**
 * A run's error as a sentence: what happened, then the database's own words ("The query failed: column "x" does not
 * exist.").
 */
function runError(run: Execution): Error | undefined {
  if (!run.errorMessage) return undefined
  const lead = run.status === 'TIMEOUT' ? 'The query ran out of time' : 'The query failed'
  const words = run.errorMessage.trim().replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())
  return new Error(`${lead}: ${fullStop(words)}`)
}
const fullStop = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`)

/** The current run: its state, time and lines in one line ("Done · 0.42 s in all · 50 lines"), its cap, its error. */
function CurrentRun({
  run,
  now,
  onDownload,
  onCancel,
}: {
  run: Execution
  now: number
  onDownload: (id: number) => void
  onCancel: (id: number) => void
}) {
  const failure = useMemo(() => runError(run), [run])
  const running = run.status === null
  return (
    <Paper withBorder p="sm" my="sm" component="section" aria-label="Current run" aria-live="polite">
      <Group justify="space-between" align="center" gap="xs" wrap="wrap">
        <Stack gap={2}>
          <Title order={2} size="h5">
            Run {run.id}
          </Title>
          <Text data-testid="run-status" size="sm">
            <StatusBadge run={run} /> · {elapsed(run, now)}
            {running ? ' elapsed' : ' in all'}
            {run.lineCount !== null && ` · ${count(run.lineCount)} ${run.lineCount === 1 ? 'line' : 'lines'}`}
            {running && (run.rowsSoFar === null ? ' · starting' : ` · ${count(run.rowsSoFar)} rows so far`)}
          </Text>
        </Stack>
        {run.status === 'SUCCESS' && <Button onClick={() => onDownload(run.id)}>Download CSV</Button>}
        {running && (
          <Button variant="default" onClick={() => onCancel(run.id)}>
            Cancel run
          </Button>
        )}
      </Group>
      {run.truncatedMessage && (
        <Alert color="orange" variant="light" role="note" mt="xs" data-testid="run-cap">
          {fullStop(run.truncatedMessage)}
        </Alert>
      )}
      <ErrorMessage error={failure} />
    </Paper>
  )
}

/** The user's last runs: what ran, when, how it ended, and the query to open again, its CSV or its cancel. */
function RecentRuns({
  runs,
  onOpen,
  onDownload,
  onCancel,
}: {
  runs: Execution[]
  onOpen: (run: Execution) => void
  onDownload: (id: number) => void
  onCancel: (id: number) => void
}) {
  return (
    // Holds the visually hidden header: positioned against the page, it would widen it on a phone.
    <Box pos="relative">
      <Table.ScrollContainer minWidth={0} type="native">
        <Table aria-label="Recent runs" striped highlightOnHover verticalSpacing={6} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Run</Table.Th>
              <Table.Th visibleFrom="sm">Started</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th ta="right" visibleFrom="sm">
                Lines
              </Table.Th>
              <Table.Th ta="right" visibleFrom="sm">
                Time
              </Table.Th>
              <Table.Th visibleFrom="md">Query</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {runs.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td ff="monospace">{e.id}</Table.Td>
                <Table.Td visibleFrom="sm" style={{ whiteSpace: 'nowrap' }}>
                  {new Date(e.startDate).toLocaleString()}
                </Table.Td>
                <Table.Td>
                  <StatusBadge run={e} />
                  {/* On a phone the lines go under the status, in words: the table has no room for their column. */}
                  <Text hiddenFrom="sm" size="xs" c="dimmed" mt={2}>
                    {linesInWords(e)}
                  </Text>
                </Table.Td>
                <Table.Td
                  ta="right"
                  visibleFrom="sm"
                  style={{ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}
                >
                  {e.lineCount === null ? (e.rowsSoFar === null ? '' : `${count(e.rowsSoFar)}…`) : count(e.lineCount)}
                  {e.truncated && ' (cap)'}
                </Table.Td>
                <Table.Td ta="right" visibleFrom="sm" style={{ whiteSpace: 'nowrap' }}>
                  {e.durationMs === null ? '' : seconds(e.durationMs)}
                </Table.Td>
                <Table.Td visibleFrom="md">
                  <Text ff="monospace" fz="xs" maw="28rem" truncate="end" title={e.queryText}>
                    {e.queryText}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={6} wrap="wrap" justify="flex-end">
                    <Button
                      size="compact-sm"
                      variant="default"
                      onClick={() => onOpen(e)}
                      aria-label={`Open the query of run ${e.id}`}
                    >
                      Open
                    </Button>
                    {e.status === 'SUCCESS' && (
                      <Button
                        size="compact-sm"
                        variant="light"
                        onClick={() => onDownload(e.id)}
                        aria-label={`Download the CSV of run ${e.id}`}
                      >
                        Download
                      </Button>
                    )}
                    {e.status === null && (
                      <Button
                        size="compact-sm"
                        variant="light"
                        color="red"
                        onClick={() => onCancel(e.id)}
                        aria-label={`Cancel run ${e.id}`}
                      >
                        Cancel
                      </Button>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Box>
  )
}

/** Expert mode: native SQL run in the background into a CSV file, its live status, and the user's recent runs. */
export function Expert() {
  const [text, setText] = useState(FIRST_QUERY)
  const [error, setError] = useState<unknown>()
  const [submitting, setSubmitting] = useState(false)
  const [now, setNow] = useState(() => Date.now())
  const [message, setMessage] = useState<string>()
  // An error at a line and column puts the cursor there.
  const mark = useMemo(() => errorMark(error), [error])
  const queries = useQueryClient()
  // The current run lives in the address (?run=id): leaving the screen and coming back, or a reload, finds it.
  const [params, setParams] = useSearchParams()
  const runId = Number(params.get('run')) || undefined

  const recentQuery = useQuery({
    queryKey: RUNS_KEY,
    queryFn: () => ok(api.GET('/api/v1/workbench/expert/executions', { params: { query: { offset: 0, limit: 10 } } })),
    staleTime: 0,
  })
  const recent = recentQuery.data?.data ?? []
  const refresh = useCallback(() => queries.invalidateQueries({ queryKey: RUNS_KEY }), [queries])

  // The current run's record, read again every second while it has no status.
  const runQuery = useQuery({
    queryKey: RUN_KEY(runId),
    queryFn: () => ok(api.GET('/api/v1/workbench/expert/executions/{id}', { params: { path: { id: runId! } } })),
    enabled: runId !== undefined,
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.status === null ? POLL_MS : false),
  })
  const current = runQuery.data
  const running = current !== undefined && current.status === null
  useEffect(() => {
    if (current && current.status !== null) void refresh()
  }, [current?.status, refresh, current])
  // The elapsed time moves every second while it runs.
  useEffect(() => {
    if (!running) return
    const tick = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(tick)
  }, [running])

  // Completion offers only the tables the Expert role can read (the API lists them), columns after `table.`.
  const [tables, setTables] = useState<SQLNamespace>()
  useEffect(() => {
    ok(api.GET('/api/v1/workbench/expert/schema/tables')).then(
      (answer) =>
        setTables(
          Object.fromEntries(
            answer.tables.map((table) => [
              table.name,
              table.columns.map((c) => ({
                label: c.name,
                type: 'property',
                detail: c.references ? `→ ${c.references}` : c.type,
              })),
            ]),
          ),
        ),
      setError,
    )
  }, [])

  const submit = useCallback(() => {
    setSubmitting(true)
    setError(undefined)
    setMessage(undefined)
    ok(api.POST('/api/v1/workbench/expert/execute', { body: { query: text } }))
      .then((accepted) => {
        const id = accepted.queryExecutionResultId
        // Shown at once, running, before its first read.
        queries.setQueryData(RUN_KEY(id), acceptedRun(id, text))
        setNow(Date.now())
        setParams({ run: String(id) })
        void refresh()
      }, setError)
      .finally(() => setSubmitting(false))
  }, [text, refresh, queries, setParams])

  const cancel = (id: number) => {
    setError(undefined)
    ok(api.DELETE('/api/v1/workbench/expert/executions/{id}', { params: { path: { id } } })).then((e) => {
      queries.setQueryData(RUN_KEY(id), e)
      void queries.invalidateQueries({ queryKey: RUN_KEY(id) })
      void refresh()
    }, setError)
  }
  const save = (id: number) => {
    setError(undefined)
    download(id).catch(setError)
  }

  return (
    <Paper withBorder p="md" className="screen workbench">
      <Title order={1} size="h3" mb={4}>
        Query workbench · Expert (SQL)
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        A read-only SQL query over the database runs in the background into a CSV file; its status, time and rows so far
        update every second, and it stays here when you come back.
      </Text>
      <SavedQueries queryType="NATIVE_SQL" text={text} onOpen={setText} onMessage={setMessage} onError={setError} />
      <HqlEditor
        label="SQL query"
        value={text}
        onChange={setText}
        onRun={submit}
        mark={mark}
        schemaCompletion={false}
        sqlSchema={tables}
      />
      <Group gap="sm" my="xs" wrap="wrap">
        <Button onClick={submit} loading={submitting} loaderProps={{ type: 'dots' }}>
          Submit
        </Button>
        <Text size="sm" c="dimmed">
          Ctrl+Enter submits
        </Text>
      </Group>
      <Notice message={message} />
      <ErrorMessage error={error ?? runQuery.error ?? recentQuery.error} />
      {current && <CurrentRun run={current} now={now} onDownload={save} onCancel={cancel} />}
      <Title order={2} size="h4" mt="lg" mb="xs">
        Your recent runs
      </Title>
      {recent.length === 0 ? (
        <Text size="sm" c="dimmed">
          No runs yet.
        </Text>
      ) : (
        <RecentRuns
          runs={recent}
          onOpen={(e) => {
            setText(e.queryText)
            setParams({ run: String(e.id) })
          }}
          onDownload={save}
          onCancel={cancel}
        />
      )}
    </Paper>
  )
}
