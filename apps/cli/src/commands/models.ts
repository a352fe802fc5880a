import { apiError, callApi } from '../api-client'
import type { ModelView } from '../api-types'
import type { Command } from '../context'
import { bytes, table } from '../format'

export const modelsCommand: Command = {
  name: 'models',
  summary: 'list the models svc knows (curated, pulled, local)',
  help: `Usage: svc models ls

Lists every model: curated catalogue entries, models pulled from a URL and local files registered
by 'svc slot load <slot> --model <path>', whether each is on disk, and which slot holds it.`,
  async run(args, ctx) {
    if (args[0] && args[0] !== 'ls' && args[0] !== 'list') {
      ctx.stderr.write('usage: svc models ls\n')
      return 2
    }
    const res = await callApi<{ models: ModelView[] }>(ctx, '/api/models')
    if (res.status !== 200) throw apiError(res)
    ctx.stdout.write(
      table(
        ['ID', 'PROVIDER', 'ROLE', 'SOURCE', 'ON DISK', 'SIZE', 'SLOT', 'BADGE', 'CAPABILITIES'],
        res.body.models.map((m) => [
          m.id,
          m.provider,
          m.role,
          m.source,
          m.present ? 'yes' : 'no',
          // A vision model is two files; its size is both.
          bytes(m.size === null ? null : m.size + (m.mmproj?.size ?? 0)),
          m.slot,
          m.badge,
          (m.capabilities ?? []).join(','),
        ]),
      ),
    )
    return 0
  },
}
