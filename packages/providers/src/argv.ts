/**
 * An upstream's command line the way every provider builds it: svc's fixed arguments, then svc's
 * defaults unless the slot's own `args` give that flag (so `args = ["--pooling", "cls"]` replaces
 * the default `--pooling mean`), then the slot's `args` last. `aliases` maps other spellings of a
 * flag to the one used here (`-l` → `--language`). Public: third-party providers use it too.
 */
export interface ArgvBuilder {
  /** Always present, in order. */
  fixed(...parts: string[]): ArgvBuilder
  /** Present unless the slot's args give `flag` (or an alias of it). */
  default(flag: string, ...values: string[]): ArgvBuilder
  /** The argv: fixed and defaults, then the slot's args. */
  build(): string[]
}

export function upstreamArgv(
  slotArgs: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): ArgvBuilder {
  const given = new Set(slotArgs.filter((a) => a.startsWith('-')).map((a) => aliases[a] ?? a))
  const argv: string[] = []
  const builder: ArgvBuilder = {
    fixed(...parts) {
      argv.push(...parts)
      return builder
    },
    default(flag, ...values) {
      if (!given.has(flag)) argv.push(flag, ...values)
      return builder
    },
    build: () => [...argv, ...slotArgs],
  }
  return builder
}

/** `--host <host> --port <port>`: where an upstream listens, as llama.cpp, whisper.cpp, FastFlowLM and svc's own servers spell it. */
export function listenArgs(at: { host: string; port: number }): string[] {
  return ['--host', at.host, '--port', String(at.port)]
}
