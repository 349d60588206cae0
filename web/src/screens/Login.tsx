import { useState, type SyntheticEvent } from 'react'
import { login, type PortalSession } from '../api.ts'
import { ErrorMessage } from '../components.tsx'

export function Login({ notice, onLoggedIn }: { notice?: string; onLoggedIn: (session: PortalSession) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<unknown>()
  const [busy, setBusy] = useState(false)

  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    login(username, password).then(onLoggedIn, (e: unknown) => {
      setError(e)
      setBusy(false)
    })
  }

  return (
    <main className="login">
      <form onSubmit={submit} aria-label="Log in">
        <h1>Obol</h1>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        <label>
          Username
          <input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="username" required />
        </label>
        <label>
          Password
          <input
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete="current-password"
            required
          />
        </label>
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  )
}
