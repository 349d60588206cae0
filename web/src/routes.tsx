import { lazy, Suspense, type ComponentType, type ReactElement } from 'react'
import { Loader } from '@mantine/core'
import { Catalog } from './screens/Catalog.tsx'
import { OrderPreview } from './screens/OrderPreview.tsx'

/**
 * A screen loaded when first opened (its own chunk): the charts (recharts) and the editors (CodeMirror) are most of
 * the bundle, and the first page needs neither until it is shown.
 */
const loaders: (() => Promise<unknown>)[] = []
// Once the first screen is up, the others are fetched in the background: a screen opened later shows at once.
setTimeout(() => loaders.forEach((load) => void load().catch(() => undefined)), 1500)

function lazyScreen(load: () => Promise<ComponentType>): ComponentType {
  loaders.push(load)
  const Screen = lazy(async () => ({ default: await load() }))
  return function LazyScreen() {
    return (
      <Suspense fallback={<Loader size="sm" aria-label="Loading the screen" />}>
        <Screen />
      </Suspense>
    )
  }
}
const Overview = lazyScreen(async () => (await import('./screens/Overview.tsx')).Overview)
const Workbench = lazyScreen(async () => (await import('./screens/Workbench.tsx')).Workbench)
const Expert = lazyScreen(async () => (await import('./screens/Expert.tsx')).Expert)
const Reports = lazyScreen(async () => (await import('./screens/Reports.tsx')).Reports)
const Prepaid = lazyScreen(async () => (await import('./screens/Prepaid.tsx')).Prepaid)
const Groups = lazyScreen(async () => (await import('./screens/Groups.tsx')).Groups)
const Webhooks = lazyScreen(async () => (await import('./screens/settings/Webhooks.tsx')).Webhooks)
const Invoices = lazyScreen(async () => (await import('./screens/billing/Invoices.tsx')).Invoices)
const BillRuns = lazyScreen(async () => (await import('./screens/billing/BillRuns.tsx')).BillRuns)
const Accounts = lazyScreen(async () => (await import('./screens/Accounts.tsx')).Accounts)
const Orders = lazyScreen(async () => (await import('./screens/Orders.tsx')).Orders)
const Offers = lazyScreen(async () => (await import('./screens/Offers.tsx')).Offers)
const Products = lazyScreen(async () => (await import('./screens/Products.tsx')).Products)
const Attributes = lazyScreen(async () => (await import('./screens/Attributes.tsx')).Attributes)
const DiscountPlans = lazyScreen(async () => (await import('./screens/DiscountPlans.tsx')).DiscountPlans)
const Charges = lazyScreen(async () => (await import('./screens/Charges.tsx')).Charges)

/** The sections of the navigation, in the order a billing team works through them. */
export const SECTIONS = ['Overview', 'Catalog', 'Sales', 'Billing', 'Data', 'Settings'] as const
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
  { path: 'overview', label: 'Overview', section: 'Overview', element: <Overview /> },
  { path: 'catalog', label: 'Catalog', section: 'Catalog', element: <Catalog />, nav: false },
  { path: 'catalog/charges/*', label: 'Charges', section: 'Catalog', element: <Charges /> },
  { path: 'catalog/products/*', label: 'Products', section: 'Catalog', element: <Products /> },
  { path: 'catalog/offers/*', label: 'Offers', section: 'Catalog', element: <Offers /> },
  { path: 'catalog/attributes/*', label: 'Attributes', section: 'Catalog', element: <Attributes /> },
  { path: 'catalog/discount-plans/*', label: 'Discount plans', section: 'Catalog', element: <DiscountPlans /> },
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
export const HOME = 'overview'
