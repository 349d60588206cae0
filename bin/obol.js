#!/usr/bin/env node
// Obol runs its TypeScript sources directly on Node's type stripping (Node 22.18+, default in 24).
// npm scripts use the Node 24 carried in devDependencies; older Node is told what to do.
import { spawn } from 'node:child_process'

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `obol: Node ${process.versions.node} is too old; run it through npm (npm start) or install Node 24.\n`,
  )
  process.exit(1)
}
if (!process.features.typescript) {
  // Run again with type stripping on. This process stays in front of the child: a signal sent to it (npm, a service
  // manager or kill sending SIGTERM to the pid it started) is passed on, and it exits as the child does, so stopping
  // it stops the server it started.
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', ...process.argv.slice(1)], {
    stdio: 'inherit',
  })
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP']
  for (const signal of signals) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1)
    // Killed by a signal: end the same way, so whoever started this process sees it.
    for (const s of signals) process.removeAllListeners(s)
    process.kill(process.pid, signal)
  })
} else {
  const { main } = await import('../src/cli.ts')
  await main(process.argv.slice(2))
}
