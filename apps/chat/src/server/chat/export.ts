import type { Conversation, Message } from '../store/types'

/** A file name for the conversation's export: its title reduced to safe characters. */
export function exportName(conversation: Conversation, ext: 'md' | 'json'): string {
  const slug = conversation.title
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .slice(0, 60)
  return `${slug || 'conversation'}.${ext}`
}

/**
 * The conversation as Markdown a person can read or paste elsewhere: title, system prompt, then each
 * turn under a heading with who spoke (and the model), reasoning folded in `<details>`, a note on
 * answers that did not complete, and attachments named (their bytes stay in the JSON export's ids).
 */
export function toMarkdown(conversation: Conversation): string {
  const lines = [`# ${conversation.title}`, '']
  lines.push(`_Exported from svc chat on ${new Date().toISOString()}_`, '')
  if (conversation.system.trim()) lines.push('## System prompt', '', conversation.system.trim(), '')
  for (const m of conversation.messages) lines.push(...turn(m))
  return `${lines.join('\n').trimEnd()}\n`
}

function turn(m: Message): string[] {
  const who = m.role === 'user' ? 'You' : `Assistant${m.model ? ` (${m.model})` : ''}`
  const out = [`## ${who}`, '']
  if (m.kind === 'image' && m.role === 'user') out.push(`_Image prompt:_ ${m.content}`, '')
  if (m.reasoning.trim()) {
    out.push('<details><summary>Reasoning</summary>', '', m.reasoning.trim(), '', '</details>', '')
  }
  if (m.kind === 'text' && m.content) out.push(m.content, '')
  for (const a of m.attachments) out.push(`_[${a.mime} attachment ${a.file}]_`, '')
  if (m.status !== 'complete') out.push(`_(${m.status}${m.error ? `: ${m.error}` : ''})_`, '')
  return out
}

/** The JSON export: the conversation as stored, with a format marker for importers. */
export function toJson(conversation: Conversation): string {
  return `${JSON.stringify({ format: 'svc-chat/1', exportedAt: new Date().toISOString(), conversation }, null, 2)}\n`
}
