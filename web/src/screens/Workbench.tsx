import { useCallback, useMemo, useState } from 'react'
import { useMutation } from '@tanstack/react-query'
import { Button, Group, Paper, Text, Title } from '@mantine/core'
import { api, ok } from '../client.ts'
import { ErrorMessage, Grid, Notice, type Row } from '../components.tsx'
import { errorMark, HqlEditor } from '../HqlEditor.tsx'
import { SavedQueries } from '../SavedQueries.tsx'

const FIRST_QUERY = 'select c.code, c.name, c.seller.code as seller from Customer c order by c.code'

interface DeepResult {
  rows: Row[]
  truncated: boolean
}

/** Runs a Deep (HQL) query: its rows, and whether the server's row cap cut them (a header of the answer). */
async function runDeep(text: string): Promise<DeepResult> {
  const pending = api.GET('/api/rest/query', { params: { query: { query: text } } })
  const { response } = await pending
  const rows = await ok(pending)
  return { rows: rows as unknown as Row[], truncated: response.headers.get('x-result-truncated') === 'true' }
}

/** Deep mode: an HQL editor, its result grid, and saved workbench queries to reopen. */
export function Workbench() {
  const [text, setText] = useState(FIRST_QUERY)
  const [error, setError] = useState<unknown>()
  const [message, setMessage] = useState<string>()
  const [closeSignal, setCloseSignal] = useState(0)
  const run = useMutation({ mutationFn: runDeep })
  // An old result never stays under a new error: the result shown is the last run's, and only if it answered.
  const result = run.isSuccess ? run.data : undefined
  const shownError = error ?? run.error ?? undefined

  // An error at a line and column puts the cursor there.
  const mark = useMemo(() => errorMark(shownError), [shownError])

  const start = useCallback(() => {
    setError(undefined)
    setMessage(undefined)
    run.mutate(text)
  }, [text, run])

  const opened = useCallback(
    (queryText: string) => {
      setText(queryText)
      run.reset()
    },
    [run],
  )

  return (
    <Paper withBorder p="md" className="screen workbench">
      <Title order={1} size="h3" mb="xs">
        Query workbench · Deep (HQL)
      </Title>
      <SavedQueries
        queryType="HQL"
        text={text}
        onOpen={opened}
        onMessage={setMessage}
        onError={setError}
        onSaved={() => setCloseSignal((n) => n + 1)}
      />
      <HqlEditor
        label="HQL query"
        value={text}
        onChange={setText}
        onRun={start}
        mark={mark}
        closeSignal={closeSignal}
      />
      <Group gap="sm" my="xs" wrap="wrap">
        <Button onClick={start} loading={run.isPending} loaderProps={{ type: 'dots' }}>
          Run
        </Button>
        <Text size="sm" c="dimmed">
          Ctrl+Enter runs · Ctrl+Space completes entities, and fields after a dot
        </Text>
      </Group>
      <Notice message={message} />
      <ErrorMessage error={shownError} />
      {result && <Grid rows={result.rows} truncated={result.truncated} />}
    </Paper>
  )
}
