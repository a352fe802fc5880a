/**
 * Reading a small file together with its identity, so a reader can tell cheaply (one stat) whether
 * the file changed since: a rename over it (new inode), a rewrite (size, mtime, ctime).
 */
import { open, stat } from 'node:fs/promises'

export interface FileSnapshot {
  text: string
  signature: string
}

/** The file's text and signature, or null when it does not exist. */
export async function readSnapshot(path: string): Promise<FileSnapshot | null> {
  let fh: Awaited<ReturnType<typeof open>>
  try {
    fh = await open(path, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  try {
    // fstat and read on one descriptor: the signature belongs to exactly the text read.
    const st = await fh.stat()
    return { text: await fh.readFile('utf8'), signature: signatureOf(st) }
  } finally {
    await fh.close()
  }
}

/** `stat`, or null when the file does not exist. */
export async function statOrNull(path: string) {
  try {
    return await stat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** The identity of a file version: device, inode, size, mtime, ctime. */
export function signatureOf(st: {
  dev: number
  ino: number
  size: number
  mtimeMs: number
  ctimeMs: number
}) {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
}
