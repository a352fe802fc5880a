import type { ModelPullEvent, SlotSnapshot } from '@svc/core'
import { useState } from 'preact/hooks'
import { HubRepo } from './hub-repo'
import { HubSearch } from './hub-search'
import './hub-library.css'

export interface HubLibraryProps {
  denied: string | undefined
  slots: readonly SlotSnapshot[]
  pulls: Readonly<Record<string, ModelPullEvent>>
  onChanged(): void
}

/** The Hub half of the Models page: search on the left (on top when narrow), the picked repo beside it. */
export function HubLibrary({ denied, slots, pulls, onChanged }: HubLibraryProps) {
  const [repo, setRepo] = useState<string | null>(null)
  return (
    <div class="hub-library">
      <HubSearch selected={repo} onSelect={setRepo} />
      {repo ? (
        <HubRepo repo={repo} denied={denied} slots={slots} pulls={pulls} onChanged={onChanged} />
      ) : null}
    </div>
  )
}
