import { useMemo, useState } from 'react'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { Select, type SelectProps } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { queryRecords, text } from './query-api.ts'

/** The levels of the account hierarchy, as the Query API names their entities. */
export type AccountKind = 'customer' | 'customerAccount' | 'billingAccount' | 'userAccount'

export interface PickedAccount {
  readonly code: string
  readonly name: string
}

const label = (row: { code: string; name: string }) => (row.name ? `${row.code} · ${row.name}` : row.code)

/**
 * A searchable account picker: what is typed is looked up through the Query API (code, name or description,
 * ignoring case, anywhere in the text), 20 answers at a time; the newest search's answer is shown (TanStack Query
 * keys), never an older one. `within` narrows the search (`{ billingAccount: 'BA_001' }` for its user accounts).
 */
export function AccountPicker({
  kind,
  label: fieldLabel,
  value,
  onChange,
  within,
  placeholder = 'Type a code or a name',
  disabled,
  w,
}: {
  kind: AccountKind
  label: string
  value: string
  onChange: (code: string, account: PickedAccount | undefined) => void
  within?: Record<string, string>
  placeholder?: string
  disabled?: boolean
  /** The field's width (Mantine's style prop: `{ base: '100%', xs: 320 }`). */
  w?: SelectProps['w']
}) {
  const [search, setSearch] = useState('')
  const [picked, setPicked] = useState<PickedAccount>()
  // The search box shows the chosen account's label: that is not a search.
  const typed = picked && search === label(picked) ? '' : search.trim()
  const [debounced] = useDebouncedValue(typed, 200)
  const found = useQuery({
    queryKey: ['accountSearch', kind, within ?? {}, debounced],
    queryFn: () =>
      queryRecords(kind, {
        filters: { ...(debounced ? { 'wildcardOrIgnoreCase code name description': debounced } : {}), ...within },
        fields: ['code', 'name', 'description'],
        limit: 20,
        sortBy: 'code',
      }),
    placeholderData: keepPreviousData,
    enabled: !disabled,
  })
  const accounts = useMemo(() => {
    const list = (found.data?.rows ?? []).map((r) => ({
      code: text(r, 'code'),
      name: text(r, 'name') || text(r, 'description'),
    }))
    if (picked && picked.code === value && !list.some((a) => a.code === value)) list.unshift(picked)
    if (value && !list.some((a) => a.code === value)) list.unshift({ code: value, name: '' })
    return list
  }, [found.data, picked, value])
  const more = typed !== '' && (found.data?.total ?? 0) > (found.data?.rows.length ?? 0)

  return (
    <Select
      label={fieldLabel}
      placeholder={placeholder}
      searchable
      clearable
      disabled={disabled}
      w={w}
      value={value || null}
      searchValue={search}
      onSearchChange={setSearch}
      // The server filters; the list shows its answer as it is.
      filter={({ options }) => options}
      data={accounts.map((a) => ({ value: a.code, label: label(a) }))}
      nothingFoundMessage={found.isFetching ? 'Searching…' : 'No account matches'}
      description={more ? `First 20 of ${found.data?.total}: type more to narrow` : undefined}
      onChange={(code) => {
        const account = accounts.find((a) => a.code === code)
        setPicked(account)
        onChange(code ?? '', account)
      }}
      comboboxProps={{ withinPortal: true }}
    />
  )
}
