import { can, whyNot } from '../../api/session'
import { Notice } from '../../components/notice'
import { Page } from '../../components/page'
import { Link } from '../../router'
import { useSession } from '../../session-context'
import { ChatPanel } from './chat-panel'
import { EmbeddingsPanel } from './embeddings-panel'
import { ImagePanel } from './image-panel'
import { RerankPanel } from './rerank-panel'
import { SpeechPanel } from './speech-panel'
import { TranscribePanel } from './transcribe-panel'

const TABS = [
  { id: 'chat', label: 'Chat', Panel: ChatPanel },
  { id: 'embeddings', label: 'Embeddings', Panel: EmbeddingsPanel },
  { id: 'rerank', label: 'Rerank', Panel: RerankPanel },
  { id: 'image', label: 'Image', Panel: ImagePanel },
  { id: 'speech', label: 'Speech', Panel: SpeechPanel },
  { id: 'transcribe', label: 'Transcribe', Panel: TranscribePanel },
] as const

/** Try every kind of model: one tab per OpenAI endpoint family. Loaded lazily (markdown, highlighting). */
export function PlaygroundPage({ tab }: { tab: string }) {
  const session = useSession()
  const current = TABS.find((t) => t.id === tab) ?? TABS[0]
  const denied = whyNot(session, 'infer')
  return (
    <Page title="Playground" tabTitle={`Playground: ${current.label}`} class="stack">
      <nav aria-label="Playground">
        <ul class="tabs">
          {TABS.map((t) => (
            <li key={t.id}>
              <Link href={`/playground/${t.id}`} current={t.id === current.id}>
                {t.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {can(session, 'infer') ? (
        <section aria-label={current.label} class="card">
          <current.Panel />
        </section>
      ) : (
        <Notice text={denied} />
      )}
    </Page>
  )
}
