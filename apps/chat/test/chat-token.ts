/** The chat app's API token, made the way its admin makes it: with the CLI, straight into tokens.toml. */
import { runSvc } from '@svc/testing'

/**
 * Runs `svc token create --label chat --scope v1-only --local` against the API's config dir and
 * returns the token it printed (`svc_…`), the value `SVC_CHAT_API_TOKEN` takes.
 */
export async function createChatToken(configDir: string): Promise<string> {
  const r = await runSvc(['token', 'create', '--label', 'chat', '--scope', 'v1-only', '--local'], {
    ...process.env,
    SVC_CONFIG_DIR: configDir,
  })
  if (r.code !== 0) throw new Error(`svc token create exited with ${r.code}: ${r.stderr}`)
  return r.stdout.trim()
}
