import type { ReactElement } from 'react'
import { Workbench } from './screens/Workbench.tsx'
import { Expert } from './screens/Expert.tsx'
import { Catalog } from './screens/Catalog.tsx'
import { Prepaid } from './screens/Prepaid.tsx'
import { Reports } from './screens/Reports.tsx'
import { OrderPreview } from './screens/OrderPreview.tsx'
import { Groups } from './screens/Groups.tsx'

/** The sections of the navigation, in the order a billing team works through them. */
export const SECTIONS = ['Catalog', 'Sales', 'Billing', 'Data', 'Settings'] as const
export type Section = (typeof SECTIONS)[number]

export interface ScreenRoute {
  /** The path under /ui/, without a leading slash; `*` suffixes allowed for screens with their own sub-routes. */
  readonly path: string
  readonly label: string
  readonly section: Section
  readonly element: ReactElement
  /** Shown in the navigation (a record's own page, such as orders/:id, is not). */
  readonly nav?: boolean
}

/**
 * Every screen of the web UI, one line each: the router and the navigation are built from this list. A screen with
 * pages of its own (a list and a record's page) declares `path/*` and routes inside itself.
 */
export const SCREENS: readonly ScreenRoute[] = [
  { path: 'catalog', label: 'Catalog', section: 'Catalog', element: <Catalog /> },
  { path: 'order', label: 'Order preview', section: 'Sales', element: <OrderPreview /> },
  { path: 'prepaid', label: 'Prepaid', section: 'Sales', element: <Prepaid /> },
  { path: 'workbench', label: 'Workbench', section: 'Data', element: <Workbench /> },
  { path: 'expert', label: 'Expert SQL', section: 'Data', element: <Expert /> },
  { path: 'reports', label: 'Reports', section: 'Data', element: <Reports /> },
  { path: 'groups', label: 'Groups', section: 'Settings', element: <Groups /> },
]

/** The landing screen, where /ui/ leads. */
export const HOME = 'workbench'
