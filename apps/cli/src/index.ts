export type { CliContext, Command } from './context'
export { COMMANDS, run } from './main'
