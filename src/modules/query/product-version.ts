import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { PROJECT_ROOT } from '../../kernel/project-root.ts'

export interface ProductVersion {
  readonly name: string
  readonly version: string
  readonly commit: string
}

/**
 * What `GET /api/rest/v2/generic/version` answers, in Opencell's shape: the product, its package version and the
 * commit of the checkout it runs from ("unknown" outside a git checkout). Read once, on first use.
 */
export function productVersion(): () => ProductVersion {
  let found: ProductVersion | undefined
  return () => {
    found ??= {
      name: 'Obol',
      version: (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string })
        .version,
      commit: gitCommit(),
    }
    return found
  }
}

function gitCommit(): string {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: PROJECT_ROOT,
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
      encoding: 'utf8',
    }).trim()
    return /^[0-9a-f]{40}$/.test(out) ? out : 'unknown'
  } catch {
    return 'unknown'
  }
}
