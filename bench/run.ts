/**
 * `npm run bench`: every benchmark in turn, each in its own process (each builds its own database on the PostgreSQL
 * server of BENCH_DATABASE_URL). Their environment variables pass through; see each file's header.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const BENCHMARKS = ['query.ts', 'rating.ts', 'offers.ts']

let failed = false
for (const file of BENCHMARKS) {
  process.stdout.write(`\n== ${file}\n`)
  const result = spawnSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' })
  if (result.status !== 0) failed = true
}
process.exit(failed ? 1 : 0)
