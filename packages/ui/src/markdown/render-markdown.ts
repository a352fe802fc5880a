/**
 * Markdown → safe HTML: marked (GFM: tables, task lists, strikethrough, autolinks), highlight.js
 * core with a handful of languages (the whole bundle is ~300 KB), then DOMPurify. Code blocks get a
 * Copy button (handled by the `Markdown` component). Links open in a new tab without an opener.
 */
import DOMPurify from 'dompurify'
import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import python from 'highlight.js/lib/languages/python'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'
import { Marked } from 'marked'

const LANGUAGES = { bash, css, javascript, json, python, typescript, xml, yaml }
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language)
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' })
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' })
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' })
hljs.registerAliases(['py'], { languageName: 'python' })
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' })
hljs.registerAliases(['yml', 'toml'], { languageName: 'yaml' })

/** The languages code blocks are highlighted in (others are shown plain). */
export const HIGHLIGHTED_LANGUAGES = Object.keys(LANGUAGES)

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? ''
      const body =
        language && hljs.getLanguage(language)
          ? hljs.highlight(text, { language, ignoreIllegals: true }).value
          : escapeHtml(text)
      const label = language ? `<span class="svc-code-lang">${escapeHtml(language)}</span>` : ''
      return `<div class="svc-code">${label}<button type="button" class="svc-code-copy" data-copy-code="">Copy</button><pre><code class="hljs">${body}</code></pre></div>`
    },
  },
})

let hooked = false
function purifier() {
  if (!hooked) {
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A' && node.getAttribute('href')) {
        node.setAttribute('target', '_blank')
        node.setAttribute('rel', 'noopener noreferrer')
      }
    })
    hooked = true
  }
  return DOMPurify
}

/** Renders one markdown source to sanitised HTML (synchronous; no HTML from the source survives unsanitised). */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false })
  return purifier().sanitize(html, { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'form'] })
}
