import { useState } from 'react'
import { Link } from 'react-router'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Anchor, Button, Group, Paper, Title } from '@mantine/core'
import { api, ok, type Got } from '../client.ts'
import { DataTable, ErrorMessage, Grid, notify, type Column, type Row } from '../components.tsx'
import { ReportBuilder } from './ReportBuilder.tsx'

type SavedQuery = Got<'/api/v1/reportQueries/{code}'>
const LIST_KEY = ['report-queries'] as const

/** The rows of an execution, whichever envelope the API wraps them in. */
function rowsOf(body: unknown): Row[] {
  if (Array.isArray(body)) return body as Row[]
  if (body && typeof body === 'object') {
    for (const key of ['data', 'rows', 'result', 'results']) {
      const value = (body as Record<string, unknown>)[key]
      if (Array.isArray(value)) return value as Row[]
    }
  }
  return []
}

const COLUMNS: Column<SavedQuery>[] = [
  { key: 'code', header: 'Code', render: (q) => <span className="code">{q.code}</span> },
  { key: 'description', header: 'Description' },
  { key: 'queryType', header: 'Type' },
  { key: 'targetEntity', header: 'Entity' },
  { key: 'visibility', header: 'Visibility' },
  {
    key: 'tags',
    header: 'Tags',
    text: (q) => (q.tags ?? []).join(', '),
  },
]

/** Saved report queries: what they are (type, visibility, tags), run one, read its rows, build, delete. */
export function Reports() {
  const client = useQueryClient()
  const [error, setError] = useState<unknown>()
  // The builder: closed, open on a new query (null), or open on a saved VISUAL query.
  const [building, setBuilding] = useState<SavedQuery | null>()
  const queries = useQuery({
    queryKey: LIST_KEY,
    queryFn: async () =>
      (
        (await ok(
          api.GET('/api/v1/query/{entity}', {
            params: {
              path: { entity: 'reportQuery' },
              query: {
                fields: 'code,description,queryType,visibility,targetEntity,tags,system',
                sortBy: 'code',
                limit: 500,
              },
            },
          }),
        )) as { data: unknown[] }
      ).data as SavedQuery[],
  })
  const refresh = () => client.invalidateQueries({ queryKey: LIST_KEY })
  const run = useMutation({
    mutationFn: async (code: string) => ({
      code,
      rows: rowsOf(
        await ok(api.POST('/api/v1/reportQueries/{code}/executions', { params: { path: { code } }, body: {} })),
      ),
    }),
    onMutate: () => setError(undefined),
  })
  const remove = useMutation({
    mutationFn: (code: string) => ok(api.DELETE('/api/v1/reportQueries/{code}', { params: { path: { code } } })),
    onMutate: () => setError(undefined),
    onSuccess: (_, code) => {
      notify(`Deleted ${code}.`)
      if (run.data?.code === code) run.reset()
      void refresh()
    },
    onError: setError,
  })

  const edit = (code: string) => {
    setError(undefined)
    ok(api.GET('/api/v1/reportQueries/{code}', { params: { path: { code } } })).then(setBuilding, setError)
  }

  return (
    <Paper withBorder p="md" className="screen">
      <Title order={1} size="h3" mb="xs">
        Saved report queries
      </Title>
      {building === undefined ? (
        <Group my="xs">
          <Button onClick={() => setBuilding(null)}>New visual query</Button>
        </Group>
      ) : (
        <ReportBuilder
          key={building?.code ?? 'new'}
          editing={building ?? undefined}
          onSaved={() => void refresh()}
          onClose={() => setBuilding(undefined)}
        />
      )}
      <ErrorMessage error={error ?? queries.error ?? run.error} />
      {queries.data && (
        <DataTable
          label="Saved report queries"
          rows={queries.data}
          columns={COLUMNS}
          pageSize={50}
          rowKey={(q) => q.code}
          actions={(q) => (
            <>
              {q.queryType === 'VISUAL' && !q.system && (
                <Button size="xs" variant="default" onClick={() => edit(q.code)} aria-label={`Edit ${q.code}`}>
                  Edit
                </Button>
              )}
              {q.queryType === 'NATIVE_SQL' && (
                <Anchor
                  component={Link}
                  size="sm"
                  to={`/expert?query=${encodeURIComponent(q.code)}`}
                  aria-label={`Open ${q.code} in Expert`}
                >
                  Open in Expert
                </Anchor>
              )}
              <Button
                size="xs"
                variant="default"
                onClick={() => run.mutate(q.code)}
                loading={run.isPending && run.variables === q.code}
                disabled={run.isPending}
                aria-label={`Run ${q.code}`}
              >
                Run
              </Button>
              {!q.system && (
                <Button
                  size="xs"
                  variant="subtle"
                  color="red"
                  aria-label={`Delete ${q.code}`}
                  onClick={() => {
                    if (window.confirm(`Delete the saved report query ${q.code}?`)) remove.mutate(q.code)
                  }}
                >
                  Delete
                </Button>
              )}
            </>
          )}
        />
      )}
      {/* The rows of the last run that answered; a failed run shows its error alone. */}
      {run.isSuccess && (
        <>
          <Title order={2} size="h4" mt="md">
            {run.data.code}
          </Title>
          <Grid rows={run.data.rows} />
        </>
      )}
    </Paper>
  )
}
