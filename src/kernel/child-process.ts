import { spawn } from 'node:child_process'

/**
 * Runs node (this process's executable) with `args` and waits for it to exit. Its standard output is ignored; a
 * non-zero exit or a signal rejects with `failure`, what ended it and its standard error.
 */
export async function runNode(args: string[], env: NodeJS.ProcessEnv, failure: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${failure} (${signal ?? `exit code ${code}`}): ${stderr.trim()}`)),
    )
  })
}
