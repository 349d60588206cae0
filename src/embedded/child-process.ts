import { spawn, type ChildProcess } from 'node:child_process'

/** The part of a child's standard error kept in a failure: its last lines, without stack frames or source lines. */
const LAST_LINES = 12
const LINE_CHARS = 300

function lastLines(text: string): string {
  const kept = text
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s+at /.test(line) && !/^\s*\^+\s*$/.test(line))
    .filter((line) => line.length <= LINE_CHARS)
    .slice(-LAST_LINES)
    .join('\n')
  return kept === '' ? '(it wrote nothing)' : kept
}

/** A child process that ended with a failure: the message says what it was for and what it wrote last. */
export class ChildProcessFailed extends Error {
  override readonly name = 'ChildProcessFailed'
}

/**
 * Runs node (this process's executable) with `args` and waits for it to end. Its standard output is ignored; a
 * non-zero exit or a signal rejects with a ChildProcessFailed: `failure`, what ended it and the end of its standard
 * error (a minified source line or a stack would bury the message).
 * `ipc` gives it a channel to this process (closed when this process exits, however it is stopped); `started` is
 * told the child once it runs.
 */
export async function runNode(
  args: string[],
  env: NodeJS.ProcessEnv,
  failure: string,
  options: { ipc?: boolean; started?: (child: ChildProcess) => void } = {},
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe', ...(options.ipc ? (['ipc'] as const) : [])],
      env,
    })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('spawn', () => options.started?.(child))
    // 'close', not 'exit': the whole of its standard error has been read by then.
    child.once('close', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new ChildProcessFailed(`${failure} (${signal ?? `exit code ${code}`}):\n${lastLines(stderr)}`)),
    )
  })
}
