import { createLogger } from './kernel/logger.ts'
import { loadConfig, ConfigError, CONFIG_VARIABLES } from './kernel/config.ts'
import { DataDirLockedError } from './embedded/data-dir-lock.ts'
import { ChildProcessFailed } from './embedded/child-process.ts'
import { migrate } from './kernel/db/migrate.ts'
import { openDatabase, start, type ProcessRole } from './main.ts'
import { seedDemo } from './seed.ts'
import { seedVolume } from './seed-volume.ts'
import { systemClock } from './kernel/clock.ts'
import { IAM_COMMAND_HELP, runIamCommand } from './modules/iam/index.ts'
import { AppError } from './kernel/errors.ts'

const USAGE = `Usage: obol <command> [options]

Commands:
  start       apply migrations and serve the API, docs and jobs
  migrate     apply pending database migrations and exit
  seed-demo   create the demo tenant (idempotent) and exit; --volume N adds N wallet operations
  create-client --name N [--group G]...   create a service-account client; prints its id and secret
  token --client N                         print an access token for a client
  rotate-keys                              start signing tokens with a new key

Run 'obol <command> --help' for a command's options.`

const HELP: Record<string, string> = {
  start: `Usage: obol start [--demo] [--role all|api|worker]

Applies migrations, then serves the HTTP API on HOST:PORT and runs the job workers.
  --demo          create the demo tenant first when it is missing
  --role ROLE     all (default): API and jobs; api: HTTP only; worker: jobs only

Environment:
${CONFIG_VARIABLES.map((v) => `  ${v.name.padEnd(24)} ${v.description} (default ${v.default})`).join('\n')}`,
  migrate: `Usage: obol migrate

Applies pending migrations to the configured database (DATABASE_URL, or embedded PGlite under DATA_DIR) and exits.`,
  'seed-demo': `Usage: obol seed-demo [--volume N [--accounts M]]

Creates the demo tenant (a seller, 50 customers with account hierarchies, currencies, taxes, the MONTHLY calendar,
a billing cycle, invoice categories, accounting articles). Does nothing when it already exists.
  --volume N      then adds N wallet operations (1 to 1,000,000,000) dated over the last two years, with the
                  subscriptions and charge instances they belong to; progress on the terminal
  --accounts M    puts them on M new billing accounts (1 to N), each with its customer, customer account, user
                  account and principal wallet, instead of the demo's`,
  ...IAM_COMMAND_HELP,
}

/** `--volume N` and `--accounts M` of seed-demo (undefined without --volume), in any order. */
function volumeOptions(args: string[]): { count: number; accounts?: number } | undefined {
  const given = new Map<string, string | undefined>()
  for (let i = 0; i < args.length; i += 2) {
    const option = args[i]!
    if (option !== '--volume' && option !== '--accounts') fail(`seed-demo: unknown option '${option}'`)
    if (given.has(option)) fail(`seed-demo: ${option} is given twice`)
    given.set(option, args[i + 1])
  }
  if (given.size === 0) return undefined
  const count = given.get('--volume')
  if (count === undefined && given.has('--accounts')) fail('seed-demo: --accounts goes with --volume N')
  const number = (value: string | undefined, max: number) =>
    value !== undefined && /^\d{1,10}$/.test(value) && Number(value) >= 1 && Number(value) <= max
  if (!number(count, 1_000_000_000))
    fail(`seed-demo: --volume expects a number of wallet operations from 1 to 1000000000, got '${count ?? ''}'`)
  if (!given.has('--accounts')) return { count: Number(count) }
  const accounts = given.get('--accounts')
  if (!number(accounts, Number(count)))
    fail(
      `seed-demo: --accounts expects a number of billing accounts from 1 to ${count!} (--volume), got '${accounts ?? ''}'`,
    )
  return { count: Number(count), accounts: Number(accounts) }
}

function fail(message: string): never {
  process.stderr.write(`obol: ${message}\n`)
  process.exit(1)
}

async function withDatabase(task: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<void>): Promise<void> {
  const config = loadConfig()
  const opened = await openDatabase(config, createLogger(config.logLevel, { pretty: process.stdout.isTTY }))
  try {
    await task(opened)
  } finally {
    await opened.database.close()
    opened.lock?.release()
  }
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (!(command in HELP)) fail(`unknown command '${command}'\n\n${USAGE}`)
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${HELP[command]!}\n`)
    return
  }
  try {
    switch (command) {
      case 'start': {
        let demo = false
        let role: ProcessRole = 'all'
        for (let i = 0; i < args.length; i++) {
          const arg = args[i]!
          if (arg === '--demo') demo = true
          else if (arg === '--role' || arg.startsWith('--role=')) {
            const value = arg.includes('=') ? arg.split('=')[1] : args[++i]
            if (value !== 'all' && value !== 'api' && value !== 'worker')
              fail(`--role: expected all, api or worker, got '${value ?? ''}'`)
            role = value
          } else fail(`start: unknown option '${arg}'\n\n${HELP.start!}`)
        }
        await start({ demo, role })
        return
      }
      case 'migrate':
        if (args.length > 0) fail(`migrate: unknown option '${args[0]!}'`)
        await withDatabase(async ({ database }) => {
          const applied = await migrate(database.db)
          process.stdout.write(applied.length > 0 ? `Applied ${applied.join(', ')}\n` : 'The database is up to date\n')
        })
        return
      case 'seed-demo': {
        const volume = volumeOptions(args)
        await withDatabase(async ({ database }) => {
          await migrate(database.db)
          const { created } = await seedDemo(database.db)
          const present =
            volume === undefined ? 'Demo tenant already present: nothing to do' : 'Demo tenant already present'
          process.stdout.write(created ? 'Demo tenant created\n' : `${present}\n`)
          if (volume === undefined) return
          const started = performance.now()
          const rate = (written: number) => Math.round(written / Math.max(0.001, (performance.now() - started) / 1000))
          const done = await seedVolume(database.db, {
            ...volume,
            clock: systemClock,
            onProgress: ({ written, total }) => {
              const line = `Wallet operations: ${written.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} (${rate(written).toLocaleString('en-US')}/s)`
              process.stdout.write(process.stdout.isTTY ? `\r${line}` : `${line}\n`)
            },
          })
          if (process.stdout.isTTY) process.stdout.write('\n')
          const seconds = ((performance.now() - started) / 1000).toFixed(1)
          process.stdout.write(
            `Added ${done.walletOperations.toLocaleString('en-US')} wallet operations on ${done.subscriptions.toLocaleString('en-US')} new subscriptions${done.billingAccounts > 0 ? ` of ${done.billingAccounts.toLocaleString('en-US')} new billing accounts` : ''} in ${seconds} s\n`,
          )
        })
        return
      }
      case 'create-client':
      case 'token':
      case 'rotate-keys':
        await withDatabase(async ({ database }) => {
          await migrate(database.db)
          try {
            process.stdout.write(await runIamCommand(command, args, database.db, loadConfig()))
          } catch (error) {
            if (error instanceof AppError) throw new Error(error.message, { cause: error })
            throw error
          }
        }).catch((error: unknown) => {
          if (error instanceof ConfigError || error instanceof DataDirLockedError) throw error
          fail(`${command}: ${error instanceof Error ? error.message : String(error)}`)
        })
        return
    }
  } catch (error) {
    if (error instanceof ConfigError) fail(`configuration error: ${error.message}`)
    if (error instanceof DataDirLockedError) fail(error.message)
    // What the child said is in the message; the parent's stack adds nothing.
    if (error instanceof ChildProcessFailed) fail(error.message)
    throw error
  }
}
