import { Navigate } from 'react-router'

/**
 * The catalog's own address (/ui/catalog, linked before the catalog had a screen per record kind) leads to its
 * first screen, the charges; products and offers have theirs (catalog/products, catalog/offers).
 */
export function Catalog() {
  return <Navigate to="/catalog/charges" replace />
}
