#!/usr/bin/env node
// Obol runs its TypeScript sources directly on Node's type stripping (Node 22.18+, default in 24).
// npm scripts use the Node 24 carried in devDependencies; older Node is told what to do.
import { spawnSync } from 'node:child_process'

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `obol: Node ${process.versions.node} is too old; run it through npm (npm start) or install Node 24.\n`,
  )
  process.exit(1)
}
if (!process.features.typescript) {
  const child = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings', ...process.argv.slice(1)], {
    stdio: 'inherit',
  })
  process.exit(child.status ?? 1)
}
const { main } = await import('../src/cli.ts')
await main(process.argv.slice(2))
