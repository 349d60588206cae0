import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Button, Group, Select, TextInput } from '@mantine/core'
import { api, ok } from './client.ts'
import { notify } from './components.tsx'

/** The saved workbench queries of one type, for the list: the first 1,000 by code (the list's largest page). */
const savedKey = (queryType: 'HQL' | 'NATIVE_SQL') => ['workbench-queries', queryType] as const

/**
 * The saved workbench queries of one kind (HQL for Deep, NATIVE_SQL for Expert): open one into the editor, save the
 * editor's text under a name (a new query, or the one of that name replaced), or delete the one opened.
 */
export function SavedQueries({
  queryType,
  text,
  onOpen,
  onMessage,
  onError,
  onSaved,
}: {
  queryType: 'HQL' | 'NATIVE_SQL'
  text: string
  onOpen: (text: string) => void
  onMessage: (message: string) => void
  onError: (error: unknown) => void
  /** After a save (the editor closes its completion list). */
  onSaved?: () => void
}) {
  const client = useQueryClient()
  const [code, setCode] = useState('')
  const [openCode, setOpenCode] = useState<string | null>(null)
  const saved = useQuery({
    queryKey: savedKey(queryType),
    queryFn: () =>
      ok(api.GET('/api/v1/workbench/queries', { params: { query: { queryType, limit: 1000, offset: 0 } } })).then(
        (p) => p.data,
      ),
  })
  const list = saved.data ?? []
  const refresh = () => client.invalidateQueries({ queryKey: savedKey(queryType) })

  const save = useMutation({
    mutationFn: async (name: string) => {
      const body = { code: name, queryText: text, queryType, visibility: 'PRIVATE' as const }
      return list.some((q) => q.code === name)
        ? ok(api.PUT('/api/v1/workbench/queries/{code}', { params: { path: { code: name } }, body }))
        : ok(api.POST('/api/v1/workbench/queries', { body }))
    },
    onSuccess: (q) => {
      onMessage(`Saved ${q.code}.`)
      setOpenCode(q.code)
      onSaved?.()
      void refresh()
    },
    onError,
  })
  const remove = useMutation({
    mutationFn: (name: string) =>
      ok(api.DELETE('/api/v1/workbench/queries/{code}', { params: { path: { code: name } } })),
    onSuccess: (_, name) => {
      notify(`Deleted ${name}.`)
      onMessage(`Deleted ${name}.`)
      setOpenCode(null)
      setCode('')
      void refresh()
    },
    onError,
  })

  const open = (chosen: string | null) => {
    if (!chosen) return
    ok(api.GET('/api/v1/workbench/queries/{code}', { params: { path: { code: chosen } } })).then((q) => {
      onOpen(q.queryText ?? '')
      setCode(q.code)
      setOpenCode(q.code)
      onMessage(`Opened ${q.code}.`)
    }, onError)
  }

  return (
    <Group gap="sm" align="flex-end" my="xs" wrap="wrap">
      <Select
        label="Saved queries"
        placeholder="Open a saved query…"
        data={list.map((q) => q.code)}
        value={openCode}
        onChange={open}
        searchable
        nothingFoundMessage="No saved query of that name"
        w={{ base: '100%', xs: 260 }}
      />
      <TextInput
        label="Name"
        value={code}
        onChange={(e) => setCode(e.currentTarget.value)}
        placeholder="MY_QUERY"
        // On a phone the name takes the row beside its Save button.
        w={{ base: 'auto', xs: 200 }}
        flex={{ base: 1, xs: 'none' }}
        miw={0}
      />
      <Button
        variant="default"
        loading={save.isPending}
        onClick={() => {
          const name = code.trim()
          if (!name) return onError(new Error('Name the query before saving it.'))
          onError(undefined)
          save.mutate(name)
        }}
      >
        Save
      </Button>
      {openCode && (
        <Button
          variant="subtle"
          color="red"
          loading={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete the saved query ${openCode}?`)) remove.mutate(openCode)
          }}
        >
          Delete {openCode}
        </Button>
      )}
    </Group>
  )
}
