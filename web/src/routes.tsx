import type { ReactElement } from 'react'
import { Workbench } from './screens/Workbench.tsx'
import { Expert } from './screens/Expert.tsx'
import { Catalog } from './screens/Catalog.tsx'
import { Charges } from './screens/Charges.tsx'
import { Products } from './screens/Products.tsx'
import { Offers } from './screens/Offers.tsx'
import { Prepaid } from './screens/Prepaid.tsx'
import { Reports } from './screens/Reports.tsx'
import { OrderPreview } from './screens/OrderPreview.tsx'
import { Groups } from './screens/Groups.tsx'
import { Orders } from './screens/Orders.tsx'
import { Accounts } from './screens/Accounts.tsx'
import { BillRuns } from './screens/billing/BillRuns.tsx'
import { Invoices } from './screens/billing/Invoices.tsx'
import { Webhooks } from './screens/settings/Webhooks.tsx'

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
  { path: 'catalog', label: 'Catalog', section: 'Catalog', element: <Catalog />, nav: false },
  { path: 'catalog/charges/*', label: 'Charges', section: 'Catalog', element: <Charges /> },
  { path: 'catalog/products/*', label: 'Products', section: 'Catalog', element: <Products /> },
  { path: 'catalog/offers/*', label: 'Offers', section: 'Catalog', element: <Offers /> },
  { path: 'order', label: 'Order preview', section: 'Sales', element: <OrderPreview /> },
  { path: 'orders/*', label: 'Orders', section: 'Sales', element: <Orders /> },
  { path: 'accounts/*', label: 'Accounts', section: 'Sales', element: <Accounts /> },
  { path: 'prepaid', label: 'Prepaid', section: 'Sales', element: <Prepaid /> },
  { path: 'workbench', label: 'Workbench', section: 'Data', element: <Workbench /> },
  { path: 'expert', label: 'Expert SQL', section: 'Data', element: <Expert /> },
  { path: 'reports', label: 'Reports', section: 'Data', element: <Reports /> },
  { path: 'billing/runs/*', label: 'Bill runs', section: 'Billing', element: <BillRuns /> },
  { path: 'billing/invoices/*', label: 'Invoices', section: 'Billing', element: <Invoices /> },
  { path: 'groups', label: 'Groups', section: 'Settings', element: <Groups /> },
  { path: 'settings/webhooks', label: 'Webhooks', section: 'Settings', element: <Webhooks /> },
]

/** The landing screen, where /ui/ leads. */
export const HOME = 'workbench'
