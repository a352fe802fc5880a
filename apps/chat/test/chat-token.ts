/** The chat app's API token, made the way its admin makes it: with the CLI, straight into tokens.toml. */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { REPO_ROOT } from '@svc/testing'

const exec = promisify(execFile)

/**
 * Runs `svc token create --label chat --scope v1-only --local` against the API's config dir and
 * returns the token it printed (`svc_…`), the value `SVC_CHAT_API_TOKEN` takes.
 */
export async function createChatToken(configDir: string): Promise<string> {
  const { stdout } = await exec(
    process.execPath,
    [
      `${REPO_ROOT}/apps/cli/bin/svc.js`,
      'token',
      'create',
      '--label',
      'chat',
      '--scope',
      'v1-only',
      '--local',
    ],
    { env: { ...process.env, SVC_CONFIG_DIR: configDir } },
  )
  return stdout.trim()
}
