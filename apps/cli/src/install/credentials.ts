import { readFile } from 'node:fs/promises'
import type { Readable, Writable } from 'node:stream'
import bcrypt from 'bcryptjs'
import { CliError } from '../context'
import { cliVar } from '../env-variables'

/**
 * bcrypt cost of the admin password. Every wrong password costs a full hash in Caddy (unknown users
 * too), so 14 (what `caddy hash-password` uses) lets anyone burn a second of CPU per request; 12 is
 * about 0.3 s here and above OWASP's floor of 10.
 */
export const BCRYPT_COST = 12

/** Shortest admin password taken. */
export const MIN_PASSWORD = 8

const USER = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/

/** The admin user name: 1–64 of letters, digits and `._@+-` (it is written into the Caddyfile). */
export function checkAdminUser(user: string): string {
  if (!USER.test(user)) {
    throw new CliError(
      `SVC_ADMIN_USER "${user}" is not a valid user name: 1 to 64 letters, digits and . _ @ + -, starting with a letter or digit`,
      2,
    )
  }
  return user
}

/** Refuses passwords that are too short or contain line breaks or control characters. */
export function checkPassword(password: string): string {
  if ([...password].length < MIN_PASSWORD)
    throw new CliError(`the admin password needs at least ${MIN_PASSWORD} characters`, 2)
  if (/\p{C}/u.test(password))
    throw new CliError('the admin password may not contain control characters or line breaks', 2)
  return password
}

/** bcrypt hash in Modular Crypt Format (`$2b$12$…`), made in this process: the plaintext goes nowhere. */
export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST)
}

export interface PromptStreams {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }
  stderr: Writable
}

/** `--admin-password-stdin` or `--admin-password-file PATH`. */
export type PasswordSource = { stdin: true } | { file: string }

/** Longest password file or stdin read (a password, not a document). */
const MAX_PASSWORD_INPUT = 4096

/**
 * The admin password, from the first of: `--admin-password-file PATH` or `--admin-password-stdin`
 * (the whole input; one final line break is not part of it), `SVC_ADMIN_PASSWORD`, the terminal
 * (hidden, twice). The flags exist because `sudo SVC_ADMIN_PASSWORD=… svc install` puts the
 * password into sudo's arguments, which every local user can read in `ps`. Without any of them it
 * is an error that says how to pass it.
 */
export async function readPassword(
  env: Record<string, string | undefined>,
  io: PromptStreams | undefined,
  source?: PasswordSource,
): Promise<string> {
  if (source && cliVar(env, 'SVC_ADMIN_PASSWORD'))
    throw new CliError(
      'give the admin password one way: SVC_ADMIN_PASSWORD or the --admin-password-* flag',
      2,
    )
  if (source) return checkPassword(stripLineBreak(await readSource(source, io)))
  const fromEnv = cliVar(env, 'SVC_ADMIN_PASSWORD')
  if (fromEnv !== undefined && fromEnv !== '') return checkPassword(fromEnv)
  if (!io?.stdin.isTTY || !io.stdin.setRawMode) {
    throw new CliError(
      '--auth=basic needs the admin password: use --admin-password-file PATH or --admin-password-stdin, set SVC_ADMIN_PASSWORD, or run on a terminal to be asked',
      2,
    )
  }
  const first = checkPassword(await promptHidden(io, 'Admin password: '))
  const second = await promptHidden(io, 'Again: ')
  if (first !== second) throw new CliError('the two passwords differ', 2)
  return first
}

async function readSource(source: PasswordSource, io: PromptStreams | undefined): Promise<string> {
  if ('file' in source) {
    const bytes = await readFile(source.file).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(
        `cannot read the admin password from ${source.file}: ${error.code ?? error.message}`,
        2,
      )
    })
    if (bytes.length > MAX_PASSWORD_INPUT)
      throw new CliError(`${source.file} is not a password file (over ${MAX_PASSWORD_INPUT} bytes)`, 2)
    return bytes.toString('utf8')
  }
  const stdin = io?.stdin
  if (!stdin) throw new CliError('--admin-password-stdin: there is no standard input', 2)
  let text = ''
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    if (text.length > MAX_PASSWORD_INPUT)
      throw new CliError(`--admin-password-stdin: over ${MAX_PASSWORD_INPUT} bytes, not a password`, 2)
  }
  return text
}

/** One final `\n` or `\r\n` (what `echo` and editors add) is not part of the password. */
function stripLineBreak(text: string): string {
  return text.replace(/\r?\n$/, '')
}

/** Reads one line from a TTY without echoing it. Ctrl-C or Ctrl-D abort. */
export function promptHidden(io: PromptStreams, prompt: string): Promise<string> {
  const { stdin, stderr } = io
  stdin.setRawMode?.(true) // before the prompt: nothing typed after it may be echoed
  stderr.write(prompt)
  stdin.resume()
  return new Promise((resolve, reject) => {
    let text = ''
    const done = (error?: Error) => {
      stdin.off('data', onData)
      stdin.setRawMode?.(false)
      stdin.pause()
      stderr.write('\n')
      if (error) reject(error)
      else resolve(text)
    }
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done()
        if (ch === '\u0003' || ch === '\u0004') return done(new CliError('aborted', 130))
        if (ch === '\u007f' || ch === '\b') text = [...text].slice(0, -1).join('')
        else text += ch
      }
    }
    stdin.on('data', onData)
  })
}
