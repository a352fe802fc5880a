import { apiError, callApi } from '../api-client'
import type { Command } from '../context'
import { parseOptions } from '../parse-options'

interface StatusBody {
  status: string
  version: string
  auth: string
}

export const statusCommand: Command = {
  name: 'status',
  summary: 'show whether the svc API is up',
  help: `Usage: svc status

Asks the API at --url URL (else SVC_API_URL, default http://127.0.0.1:8080) for its status and prints it.
Exits 0 when the API answers, 1 when it does not.`,
  api: true,
  async run(args, ctx) {
    parseOptions('svc status', 'usage: svc status [--url URL]', args, {}, { positionals: false })
    const res = await callApi<StatusBody>(ctx, '/api/status')
    if (res.status !== 200) throw apiError(res)
    ctx.stdout.write(`svc ${res.body.version} is up at ${ctx.apiUrl} (auth ${res.body.auth})\n`)
    return 0
  },
}
