import { useState, type SyntheticEvent } from 'react'
import { useMutation } from '@tanstack/react-query'
import { Button, Center, Paper, Stack, TextInput, Title } from '@mantine/core'
import { login, type PortalSession } from '../api.ts'
import { ErrorMessage, Notice } from '../components.tsx'

export function Login({ notice, onLoggedIn }: { notice?: string; onLoggedIn: (session: PortalSession) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const attempt = useMutation({
    mutationFn: () => login(username, password),
    onSuccess: onLoggedIn,
  })

  const submit = (event: SyntheticEvent) => {
    event.preventDefault()
    attempt.mutate()
  }

  return (
    <Center component="main" mih="100vh" p="md" className="login">
      <Paper component="form" withBorder p="xl" radius="md" w={360} maw="100%" onSubmit={submit} aria-label="Log in">
        <Stack gap="md">
          <Title order={1} size="h2">
            Obol
          </Title>
          <Notice message={notice} />
          <TextInput
            label="Username"
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
            autoComplete="username"
            required
          />
          <TextInput
            type="password"
            label="Password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            autoComplete="current-password"
            required
          />
          <ErrorMessage error={attempt.error} />
          <Button type="submit" loading={attempt.isPending}>
            Log in
          </Button>
        </Stack>
      </Paper>
    </Center>
  )
}
