import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { api, freePort, obol, startServer, stop, useCli } from '../support/cli.ts'

const { root } = useCli()

// Each test starts one to three real server processes (PGlite, migrations): a busy machine needs more than the
// default 30 s.
describe('obol CLI: start, lock and stop', { timeout: 90_000 }, () => {
  it('starts, prints its URLs, refuses a second start on the same directory, and stops on SIGTERM with code 0', async () => {
    const dataDir = path.join(root, 'lifecycle')
    const first = await startServer(dataDir)
    const printed = first.output()
    expect(printed).toContain(`API:      ${first.base}/api/v1`)
    expect(printed).toContain(`Docs:     ${first.base}/api/docs`)
    expect(printed).toContain(`Health:   ${first.base}/health/ready`)
    expect((await fetch(`${first.base}/health/ready`)).status).toBe(200)
    // The started server is the build (dist/cli.js): it finds the project's files from there too.
    const version = await api(first, 'GET', '/api/rest/v2/generic/version')
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8'))
    expect(version.body).toEqual([expect.objectContaining({ name: 'Obol', version: pkg.version })])
    // V8 keeps a script's source in memory, at one byte a character only when every character is Latin-1: the build
    // is kept within it (bin/build.js), half the memory of the 1 MB file.
    const built = fs.readFileSync(path.join(import.meta.dirname, '../../dist/cli.js'), 'utf8')
    expect(built.match(/.{0,40}[\u0100-\u{10ffff}].{0,10}/gu) ?? []).toEqual([])

    const second = await obol(['start'], { DATA_DIR: dataDir, PORT: String(await freePort()) }).exited
    expect(second.code).not.toBe(0)
    expect(second.stderr).toContain(dataDir)
    expect(second.stderr).toContain(`process ${first.pid}`)
    expect(second.stdout).not.toMatch(/ready/)
    // The refused start left the first one and its lock alone.
    expect((await fetch(`${first.base}/health/ready`)).status).toBe(200)
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'obol.lock'), 'utf8'))).toMatchObject({ pid: first.pid })

    const exit = await stop(first)
    expect(exit).toMatchObject({ code: 0, signal: null })
    expect(fs.existsSync(path.join(dataDir, 'obol.lock'))).toBe(false)
  })
  it('takes over the lock of a killed process with a warning, and keeps the data written before the kill', async () => {
    const dataDir = path.join(root, 'killed')
    const first = await startServer(dataDir)
    const created = await api(first, 'POST', '/api/v1/languages', { code: 'TLH', description: 'Klingon' })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    first.child.kill('SIGKILL')
    expect((await first.exited).signal).toBe('SIGKILL')
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'obol.lock'), 'utf8'))).toMatchObject({ pid: first.pid })

    const next = await startServer(dataDir)
    expect(next.output()).toMatch(
      new RegExp(`Taking over the lock on ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*process ${first.pid}`),
    )
    const language = await api(next, 'GET', '/api/v1/languages/TLH')
    expect(language.status).toBe(200)
    expect(language.body).toMatchObject({ code: 'TLH', description: 'Klingon' })
    expect((await stop(next)).code).toBe(0)
  })
})
