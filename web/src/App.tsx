import { useEffect, useState } from 'react'
import { logout, me, onSessionExpired, storedSession, type Me, type PortalSession } from './api.ts'
import { Login } from './screens/Login.tsx'
import { Workbench } from './screens/Workbench.tsx'
import { Expert } from './screens/Expert.tsx'
import { Catalog } from './screens/Catalog.tsx'
import { Prepaid } from './screens/Prepaid.tsx'
import { Reports } from './screens/Reports.tsx'
import { OrderPreview } from './screens/OrderPreview.tsx'
import { Groups } from './screens/Groups.tsx'

const SCREENS = [
  { path: 'workbench', label: 'Workbench', render: () => <Workbench /> },
  { path: 'expert', label: 'Expert SQL', render: () => <Expert /> },
  { path: 'reports', label: 'Reports', render: () => <Reports /> },
  { path: 'catalog', label: 'Catalog', render: () => <Catalog /> },
  { path: 'order', label: 'Order preview', render: () => <OrderPreview /> },
  { path: 'prepaid', label: 'Prepaid', render: () => <Prepaid /> },
  { path: 'groups', label: 'Groups', render: () => <Groups /> },
] as const

/** The screen named by the address's hash (#/workbench): links and the back button work without a server route. */
function useHashPath(): string {
  const read = () => window.location.hash.replace(/^#\/?/, '') || SCREENS[0].path
  const [path, setPath] = useState(read)
  useEffect(() => {
    const changed = () => setPath(read())
    window.addEventListener('hashchange', changed)
    return () => window.removeEventListener('hashchange', changed)
  }, [])
  return path
}

export function App() {
  const [session, setSession] = useState<PortalSession | undefined>(storedSession)
  const [notice, setNotice] = useState<string>()
  const [who, setWho] = useState<Me>()
  const path = useHashPath()

  useEffect(() => {
    onSessionExpired(() => {
      setSession(undefined)
      setWho(undefined)
      setNotice('Your session has expired; log in again.')
    })
  }, [])
  useEffect(() => {
    if (session) me().then(setWho, () => undefined)
  }, [session])

  if (!session)
    return (
      <Login
        notice={notice}
        onLoggedIn={(s) => {
          setNotice(undefined)
          setSession(s)
        }}
      />
    )

  const screen = SCREENS.find((s) => s.path === path) ?? SCREENS[0]
  return (
    <div className="app">
      <header className="top">
        <span className="brand">Obol</span>
        <nav aria-label="Screens">
          {SCREENS.map((s) => (
            <a key={s.path} href={`#/${s.path}`} aria-current={s === screen ? 'page' : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
        <div className="who">
          <span className="user" data-testid="user">
            {session.username}
          </span>
          {who && who.groups.length > 0 && <span className="groups">{who.groups.join(', ')}</span>}
          <button
            type="button"
            onClick={() => {
              void logout().finally(() => {
                setSession(undefined)
                setWho(undefined)
                setNotice('You have logged out.')
              })
            }}
          >
            Log out
          </button>
        </div>
      </header>
      <main>{screen.render()}</main>
    </div>
  )
}
