import { useEffect, useState } from 'react'
import { Navigate, NavLink as RouterLink, Route, Routes, useLocation, useNavigate } from 'react-router'
import { AppShell, Burger, Button, Group, NavLink, ScrollArea, Stack, Text, Title } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { logout, onSessionExpired, storedSession, type PortalSession } from './api.ts'
import { queryClient } from './query-client.ts'
import { useSession } from './session.ts'
import { Login } from './screens/Login.tsx'
import { HOME, SCREENS, SECTIONS } from './routes.tsx'

/** Links written before the router (#/workbench) still lead to their screen. */
function useLegacyHashLinks(): void {
  const navigate = useNavigate()
  const { hash } = useLocation()
  useEffect(() => {
    const legacy = /^#\/(.+)$/.exec(hash)
    if (legacy) void navigate(`/${legacy[1]}`, { replace: true })
  }, [hash, navigate])
}

function NotFound() {
  const { pathname } = useLocation()
  return (
    <Stack gap="xs" data-testid="not-found">
      <Title order={1}>Page not found</Title>
      <Text>
        There is no screen at <code>/ui{pathname}</code>. Choose one in the menu, or go to the{' '}
        <RouterLink to={`/${HOME}`}>start page</RouterLink>.
      </Text>
    </Stack>
  )
}

export function App() {
  const [session, setSession] = useState<PortalSession | undefined>(storedSession)
  const [notice, setNotice] = useState<string>()
  const [opened, { toggle, close }] = useDisclosure(false)
  const { pathname } = useLocation()
  useLegacyHashLinks()

  useEffect(() => {
    onSessionExpired(() => {
      setSession(undefined)
      queryClient.clear()
      setNotice('Your session has expired; log in again.')
    })
  }, [])
  const who = useSession(session !== undefined).data
  // The menu closes when a screen is chosen (on a phone it covers the page).
  useEffect(close, [pathname, close])

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

  return (
    <AppShell
      className="app"
      header={{ height: 52 }}
      navbar={{ width: 210, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Menu"
              aria-expanded={opened}
            />
            <Text fw={700} size="lg" className="brand">
              Obol
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap" className="who">
            <Text size="sm" data-testid="user">
              {session.username}
            </Text>
            {who && who.groups.length > 0 && (
              <Text size="sm" c="dimmed" visibleFrom="sm" className="groups">
                {who.groups.join(', ')}
              </Text>
            )}
            <Button
              variant="default"
              size="xs"
              onClick={() => {
                void logout().finally(() => {
                  setSession(undefined)
                  queryClient.clear()
                  setNotice('You have logged out.')
                })
              }}
            >
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs">
        {/* The scroller is not a Tab stop of its own (Chromium makes an overflowing box one, without a name): its links
            are, and focusing one scrolls it into view. */}
        {/* It takes the navbar's height and scrolls within it: a phone's screen is shorter than the list of screens. */}
        <ScrollArea
          component="nav"
          aria-label="Screens"
          viewportProps={{ tabIndex: -1 }}
          style={{ flex: 1, minHeight: 0 }}
        >
          {SECTIONS.map((section) => {
            const screens = SCREENS.filter((s) => s.section === section && s.nav !== false)
            if (screens.length === 0) return null
            return (
              <div key={section}>
                <Text size="xs" c="dimmed" tt="uppercase" fw={600} px="sm" mt="sm" mb={2}>
                  {section}
                </Text>
                {screens.map((s) => {
                  const to = `/${s.path.replace(/\/\*$/, '')}`
                  const current = pathname === to || pathname.startsWith(`${to}/`)
                  return (
                    <NavLink
                      key={s.path}
                      component={RouterLink}
                      to={to}
                      label={s.label}
                      active={current}
                      aria-current={current ? 'page' : undefined}
                    />
                  )
                })}
              </div>
            )
          })}
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        <Routes>
          <Route index element={<Navigate to={`/${HOME}`} replace />} />
          {SCREENS.map((s) => (
            <Route key={s.path} path={s.path} element={s.element} />
          ))}
          <Route path="*" element={<NotFound />} />
        </Routes>
      </AppShell.Main>
    </AppShell>
  )
}
