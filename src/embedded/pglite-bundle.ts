import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { PGlite } from '@electric-sql/pglite'

/**
 * PGlite's file bundle, held on disk instead of in memory.
 *
 * PGlite ships PostgreSQL's share and lib directories and ICU's data as one file, pglite.data (6 MB, 699 files). When
 * it opens, it reads that file whole into one buffer, and every file of its in-memory file system is a view into that
 * buffer: all 6 MB stay resident for as long as the database is open. PostgreSQL reads few of those files after start
 * (a time zone when a query names it, a library such as plpgsql the first time a function needs it), and most of them
 * only ever in initdb (postgres.bki, information_schema.sql, the build files), which a server runs in a child process.
 *
 * `releaseFileBundle` turns each of those files into a reader of the same bytes in pglite.data on disk, opened once
 * and kept open (a reinstall under a running server replaces the name, not the file this reads), then frees the
 * buffer. A file written to, truncated or mapped into memory (ICU maps its collation data) is read back whole first
 * and is an ordinary in-memory file from then on.
 *
 * It changes nothing, and the bundle stays in memory, unless the file system is as described: a buffer of
 * pglite.data's size found behind its files, holding the same bytes as the file on disk. PGlite's Emscripten module
 * and file system are not part of its typed interface; the shapes below are the parts this reads.
 */

/** The parts of an Emscripten file-system node used here. */
interface FsNode {
  mode: number
  mount: unknown
  contents: unknown
  usedBytes: number
  node_ops: NodeOps
  stream_ops: StreamOps
}
interface FsStream {
  node: FsNode
}
interface NodeOps {
  setattr?: (node: FsNode, attr: { size?: number }) => void
  [name: string]: unknown
}
interface StreamOps {
  read?: (stream: FsStream, buffer: NodeJS.ArrayBufferView, offset: number, length: number, position: number) => number
  write?: (stream: FsStream, ...rest: unknown[]) => number
  mmap?: (stream: FsStream, ...rest: unknown[]) => unknown
  [name: string]: unknown
}
interface EmscriptenFs {
  lookupPath(path: string, options?: { follow?: boolean }): { node: FsNode }
  readdir(path: string): string[]
  isDir(mode: number): boolean
  isFile(mode: number): boolean
  isMountpoint(node: FsNode): boolean
  ErrnoError: new (errno: number) => Error
}

/** Emscripten's errno for an I/O error (its own numbering, not Linux's). */
const EIO = 29
/** Compared with the disk file in slices of this size, so the check holds one slice at a time. */
const COMPARE_SLICE = 1024 * 1024

export interface ReleasedBundle {
  /** Files now read from disk. */
  files: number
  /** Bytes of memory given back (the buffer's size), or 0 when the buffer could not be freed. */
  bytes: number
  /** Closes pglite.data; call after the database is closed. */
  close(): void
}

/** pglite.data of the installed package, in the directory of its modules, where PGlite loads it from. */
export function bundleFile(): string {
  return path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.data')
}

/**
 * Moves the files of PGlite's bundle from memory to `dataFile` (pglite.data by default), as described above.
 * Undefined when nothing was changed.
 */
export function releaseFileBundle(pglite: PGlite, dataFile = bundleFile()): ReleasedBundle | undefined {
  const FS = (pglite as unknown as { mod?: { FS?: EmscriptenFs } }).mod?.FS
  if (!FS || typeof FS.lookupPath !== 'function' || typeof FS.ErrnoError !== 'function') return undefined
  let size: number
  try {
    size = fs.statSync(dataFile).size
  } catch {
    return undefined
  }
  const views = bundleViews(FS, size)
  if (!views) return undefined
  const fd = fs.openSync(dataFile, 'r')
  try {
    if (!sameBytes(fd, views.buffer)) {
      fs.closeSync(fd)
      return undefined
    }
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
  for (const node of views.nodes) readFromDisk(FS, node, fd)
  let bytes = 0
  try {
    // Every view into the buffer now reads from disk: detaching it frees its memory (ES2024 ArrayBuffer#transfer).
    views.buffer.transfer(0)
    bytes = size
  } catch {
    // A buffer that cannot be detached stays allocated; the files read from disk all the same.
  }
  return { files: views.nodes.length, bytes, close: () => fs.closeSync(fd) }
}

/** The bundle's buffer (the one of `size` bytes behind the files) and every file that is a view into it. */
function bundleViews(FS: EmscriptenFs, size: number): { buffer: ArrayBuffer; nodes: FsNode[] } | undefined {
  let buffer: ArrayBuffer | undefined
  const nodes: FsNode[] = []
  const walk = (dirPath: string, dir: FsNode): void => {
    for (const name of FS.readdir(dirPath)) {
      if (name === '.' || name === '..') continue
      const path = `${dirPath === '/' ? '' : dirPath}/${name}`
      // Emscripten's device and process directories hold no file of the bundle; other mounts (the data directory
      // on disk) are another file system.
      if (path === '/dev' || path === '/proc') continue
      const node = FS.lookupPath(path, { follow: false }).node
      if (FS.isMountpoint(node) || node.mount !== dir.mount) continue
      if (FS.isDir(node.mode)) walk(path, node)
      else if (FS.isFile(node.mode) && node.contents instanceof Uint8Array) {
        const contents = node.contents
        if (!buffer && contents.buffer instanceof ArrayBuffer && contents.buffer.byteLength === size)
          buffer = contents.buffer
        if (buffer && contents.buffer === buffer) nodes.push(node)
      }
    }
  }
  walk('/', FS.lookupPath('/').node)
  const memoryFile = (node: FsNode): boolean =>
    typeof node.usedBytes === 'number' &&
    ['read', 'write', 'mmap'].every((op) => typeof node.stream_ops[op] === 'function') &&
    typeof node.node_ops.setattr === 'function'
  return buffer && nodes.length > 0 && nodes.every(memoryFile) ? { buffer, nodes } : undefined
}

function sameBytes(fd: number, buffer: ArrayBuffer): boolean {
  const slice = Buffer.allocUnsafe(Math.min(COMPARE_SLICE, buffer.byteLength))
  for (let at = 0; at < buffer.byteLength; at += slice.length) {
    const length = Math.min(slice.length, buffer.byteLength - at)
    if (readFully(fd, slice, 0, length, at) !== length) return false
    if (!slice.subarray(0, length).equals(new Uint8Array(buffer, at, length))) return false
  }
  return true
}

function readFully(fd: number, into: NodeJS.ArrayBufferView, offset: number, length: number, position: number): number {
  let done = 0
  while (done < length) {
    const n = fs.readSync(fd, into, offset + done, length - done, position + done)
    if (n === 0) break
    done += n
  }
  return done
}

/**
 * Makes `node` read its bytes from `fd` at the offset of its view in the bundle. Its size stays what the file system
 * reports (MEMFS gives `usedBytes` as a file's size); writing, truncating or mapping it first reads it back whole.
 */
function readFromDisk(FS: EmscriptenFs, node: FsNode, fd: number): void {
  const view = node.contents as Uint8Array
  const start = view.byteOffset
  const memoryStream = node.stream_ops
  const memoryNode = node.node_ops
  let onDisk = true
  const load = (): void => {
    if (!onDisk) return
    const bytes = new Uint8Array(node.usedBytes)
    if (readFully(fd, bytes, 0, bytes.length, start) !== bytes.length) throw new FS.ErrnoError(EIO)
    node.contents = bytes
    node.stream_ops = memoryStream
    node.node_ops = memoryNode
    onDisk = false
  }
  const guarded = <T>(run: () => T): T => {
    try {
      return run()
    } catch (error) {
      // An exception other than the file system's own would abort PostgreSQL's WebAssembly: report an I/O error.
      if (error instanceof FS.ErrnoError) throw error
      throw new FS.ErrnoError(EIO)
    }
  }
  // A stream opened before the file was read back keeps these operations: each checks where the bytes are now.
  node.stream_ops = {
    ...memoryStream,
    read: (stream, buffer, offset, length, position) => {
      if (!onDisk) return memoryStream.read!(stream, buffer, offset, length, position)
      if (position >= node.usedBytes) return 0
      const wanted = Math.min(node.usedBytes - position, length)
      return guarded(() => readFully(fd, buffer, offset, wanted, start + position))
    },
    write: (stream, ...rest) => {
      guarded(load)
      return memoryStream.write!(stream, ...rest)
    },
    mmap: (stream, ...rest) => {
      guarded(load)
      return memoryStream.mmap!(stream, ...rest)
    },
  }
  node.node_ops = {
    ...memoryNode,
    setattr: (target, attr) => {
      if (attr.size !== undefined) guarded(load)
      memoryNode.setattr!(target, attr)
    },
  }
  node.contents = null
}
