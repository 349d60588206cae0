import type { Db } from '../../kernel/db/database.ts'
import type { Config } from '../../kernel/config.ts'
import { createIamService } from './iam.service.ts'
import { SigningKeys } from './signing-keys.ts'
import { createTokenService } from './tokens.ts'
import { bootstrapAccess } from './bootstrap.ts'

export const IAM_COMMAND_HELP: Record<string, string> = {
  'create-client': `Usage: obol create-client --name CLIENT_ID [--group GROUP]... [--description TEXT]

Creates a service-account client in the given groups and prints its id and secret (the secret is shown once).`,
  token: `Usage: obol token --client CLIENT_ID

Prints an access token for the client, with the roles of its groups now (an operator tool: it needs database access).`,
  'rotate-keys': `Usage: obol rotate-keys

Creates a new token signing key; the previous keys stay in the JWKS until the tokens they signed have expired.`,
}

export function issuerBaseUrl(config: Config): string {
  return config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`
}

function option(args: string[], name: string): string[] {
  const values: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === `--${name}`) {
      const value = args[i + 1]
      if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`)
      values.push(value)
      i++
    } else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3))
  }
  return values
}

function rejectUnknown(args: string[], known: string[]): void {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const name = arg.replace(/^--/, '').split('=')[0]!
    if (!arg.startsWith('--') || !known.includes(name)) throw new Error(`unknown argument '${arg}'`)
    if (!arg.includes('=')) i++
  }
}

/** `create-client`, `token`, `rotate-keys`: returns what to print. */
export async function runIamCommand(command: string, args: string[], db: Db, config: Config): Promise<string> {
  const iam = createIamService({ db })
  const keys = new SigningKeys(db, config.auth.tokenTtlSec)
  await bootstrapAccess(db, iam, config.auth)
  switch (command) {
    case 'create-client': {
      rejectUnknown(args, ['name', 'group', 'description'])
      const [name] = option(args, 'name')
      if (!name) throw new Error('--name is required')
      const client = await iam.createClient(
        { clientId: name, groups: option(args, 'group'), description: option(args, 'description')[0] ?? null },
        'cli',
      )
      return `client_id=${name}\nclient_secret=${client.clientSecret}\n`
    }
    case 'token': {
      rejectUnknown(args, ['client'])
      const [clientId] = option(args, 'client')
      if (!clientId) throw new Error('--client is required')
      const tokens = createTokenService({ db, keys, config: config.auth, baseUrl: issuerBaseUrl(config) })
      const identity = await tokens.clientIdentity(clientId)
      if (!identity) throw new Error(`no enabled client ${clientId}`)
      return `${(await tokens.issue(identity.identity)).access_token}\n`
    }
    case 'rotate-keys': {
      rejectUnknown(args, [])
      const kid = await keys.create(true)
      return `New signing key ${kid}; previous keys stay published for ${config.auth.tokenTtlSec + 60} s\n`
    }
    default:
      throw new Error(`unknown command ${command}`)
  }
}
