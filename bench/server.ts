import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** What benchmarks that run the server as its own process (`obol start`, as operators run it) share. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The environment (`NAME=value` before `node`) and node options of `npm start`, read from package.json so the
 * benchmark measures what operators run.
 */
export function startScript(): { env: Record<string, string>; nodeFlags: string[] } {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  const words = pkg.scripts.start.split(/\s+/)
  const node = words.indexOf('node')
  assert.ok(node >= 0, 'the start script runs node')
  const env = Object.fromEntries(
    words
      .slice(0, node)
      .filter((w) => w.includes('=')) // not `exec`
      .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  )
  return { env, nodeFlags: words.slice(node + 1, words.indexOf('bin/obol.js')).filter((w) => w.startsWith('--')) }
}

/** The resident set (VmRSS) of a process, in bytes. */
export const residentBytes = (pid: number): number => {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))
  return Number(/(\d+)/.exec(line ?? '')![1]) * 1024
}

/** Waits until the server answers ready (two minutes at most), failing with its output if it exits first. */
export async function waitReady(base: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${log()}`)
    try {
      if ((await fetch(`${base}/health/ready`)).ok) return
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the server did not become ready:\n${log()}`)
}

/** An access token of the admin client (`obol-admin`, its secret given to the server as OBOL_ADMIN_CLIENT_SECRET). */
export async function adminToken(base: string, secret: string): Promise<string> {
  const response = await fetch(`${base}/auth/realms/obol/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'obol-admin', client_secret: secret }),
  })
  assert.equal(response.status, 200, `the token endpoint answered ${response.status}`)
  return ((await response.json()) as { access_token: string }).access_token
}
