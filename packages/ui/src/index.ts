/**
 * `@svc/ui`: Preact components and helpers shared by the dashboard and the chat app. Browser-only.
 * Styles: `@svc/ui/styles.css`.
 */
// biome-ignore-all assist/source/organizeImports: grouped by topic (a table of contents), not sorted

// Building blocks: dialogs, toasts, progress, the slot state badge, form controls.
export * from './confirm-dialog'
export * from './copy-once-dialog'
export * from './file-button'
export * from './modal'
export * from './progress-bar'
export * from './select'
export * from './state-badge'
export * from './toasts'

// Chat: the streaming chat view and the SSE reading behind it.
export * from './chat/chat-input'
export * from './chat/chat-view'
export * from './chat/sse'
export * from './chat/stream-chat'

// Markdown: model output rendered as sanitised, highlighted HTML.
export * from './markdown/blocks'
export * from './markdown/markdown'
export * from './markdown/render-markdown'

// Small helpers: formatting numbers and sizes, transfer rates, the clipboard.
export * from './clipboard'
export * from './format'
export * from './transfer-rate'
