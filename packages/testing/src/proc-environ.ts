import { readFile } from 'node:fs/promises'

/**
 * One variable of a running process's environment (`/proc/<pid>/environ`; the same user or root).
 * Tests use it to read the key svc gave an upstream it started (`LLAMA_API_KEY`), which svc itself
 * never shows. Undefined when the process or the variable is not there.
 */
export async function processEnvValue(pid: number, name: string): Promise<string | undefined> {
  const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '')
  const prefix = `${name}=`
  return environ
    .split('\0')
    .find((e) => e.startsWith(prefix))
    ?.slice(prefix.length)
}

/** The `Authorization` header that opens a llama-server svc started as process `pid` (none when it has no key). */
export async function llamaKeyHeaders(pid: number): Promise<Record<string, string>> {
  const key = await processEnvValue(pid, 'LLAMA_API_KEY')
  return key ? { authorization: `Bearer ${key}` } : {}
}
