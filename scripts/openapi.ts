// Writes the OpenAPI document of a built app (no server listening) to stdout or to the file named as argument.
// The app runs on a throwaway in-memory database with the default configuration, as a first start would.
import fs from 'node:fs'
import path from 'node:path'
import pino from 'pino'
import { buildApp } from '../src/app.ts'
import { systemClock } from '../src/kernel/clock.ts'
import { loadConfig } from '../src/kernel/config.ts'
import { openPglite } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { createJobRuntime } from '../src/main.ts'

const database = await openPglite()
try {
  await migrate(database.db)
  const config = loadConfig({ OBOL_ADMIN_CLIENT_SECRET: 'openapi-dump-secret-0123456789' })
  const jobs = createJobRuntime(database, config, pino({ level: 'silent' }), 'api')
  const app = await buildApp({
    database,
    clock: systemClock,
    jobs,
    publicUrl: config.publicUrl ?? 'http://localhost:8080',
    auth: config.auth,
  })
  const text = `${JSON.stringify(app.server.swagger(), null, 2)}\n`
  await app.server.close()
  const target = process.argv[2]
  if (target) {
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, text)
  } else process.stdout.write(text)
} finally {
  await database.close()
}
