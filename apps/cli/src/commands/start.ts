import { CliError, type Command } from '../context'
import { startInBackground } from '../launch/background'
import { runInForeground } from '../launch/foreground'
import { stopStarted } from '../launch/stop'

export const startCommand: Command = {
  name: 'start',
  summary: 'start the API and the chat app in the background (what pnpm start runs)',
  help: `Usage: svc start [--foreground]

Starts the API (SVC_PORT, default 8080) and the chat app (SVC_CHAT_PORT, default 3001) from the
build (pnpm build), each its own node process, in the background: returns once both listen and
prints their URLs and pids. Their logs go to <state>/service/api.log and chat.log. Already running:
says so and changes nothing. SVC_START_CHAT=0 starts the API alone. 'svc stop' stops them.

  --foreground   run both in this terminal instead, logs on stderr; Ctrl-C or SIGTERM stops both

Configured by the environment, as 'svc serve' and 'svc chat' are (docs/configuration.md#environment).`,
  async run(args, ctx) {
    if (args.length === 1 && args[0] === '--foreground') return runInForeground(ctx)
    if (args.length > 0) throw new CliError(`svc start: unexpected argument "${args[0]}"`, 2)
    return startInBackground(ctx)
  },
}

export const stopCommand: Command = {
  name: 'stop',
  summary: 'stop what svc start started (what pnpm stop runs)',
  help: `Usage: svc stop

Stops the API and the chat app that 'svc start' started (SIGTERM: requests drain and upstreams stop,
then they exit; whatever still runs after 90 s is killed). Nothing running: says so, exits 0.`,
  async run(args, ctx) {
    if (args.length > 0) throw new CliError(`svc stop takes no arguments (got ${args.join(' ')})`, 2)
    return stopStarted(ctx)
  },
}
