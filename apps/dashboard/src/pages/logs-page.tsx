import { readErrorBody, readSse } from '@svc/core'
import { Select } from '@svc/ui'
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { authHeaders } from '../api/session'
import { CheckField } from '../components/check-field'
import { Field } from '../components/field'
import { Page } from '../components/page'
import { navigate } from '../router'
import { useLive } from '../store/use-live'

/** Most lines kept in the browser; older ones scroll away (the download has what is shown). */
export const MAX_LINES = 2000

/** Appends to a capped list of lines (pure). */
export function capLines(
  lines: readonly string[],
  added: readonly string[],
  reset: boolean,
  max = MAX_LINES,
): string[] {
  const next = reset ? [...added] : [...lines, ...added]
  return next.length > max ? next.slice(next.length - max) : next
}

/** A live tail of one slot's upstream log (`?follow=1`), capped, downloadable. */
export function LogsPage({ slot }: { slot: string | null }) {
  const slots = useLive((s) => s.slots)
  const selectId = useId()
  const [lines, setLines] = useState<string[]>([])
  const [status, setStatus] = useState<'connecting' | 'live' | 'ended' | string>('connecting')
  const [follow, setFollow] = useState(true)
  const box = useRef<HTMLDivElement>(null)
  const current = slot ?? slots[0]?.name ?? null

  useEffect(() => {
    if (!current) return
    const ac = new AbortController()
    setLines([])
    setStatus('connecting')
    void (async () => {
      try {
        const res = await fetch(`/api/slots/${encodeURIComponent(current)}/logs?follow=1`, {
          headers: { ...authHeaders(), accept: 'text/event-stream' },
          signal: ac.signal,
        })
        if (!res.ok || !res.body) {
          setStatus(readErrorBody(await res.text().catch(() => ''), `HTTP ${res.status}`).message)
          return
        }
        setStatus('live')
        for await (const m of readSse(res.body)) {
          if (m.event !== 'lines') continue
          const data = JSON.parse(m.data) as { lines: string[]; reset: boolean }
          setLines((old) => capLines(old, data.lines, data.reset))
        }
        setStatus('ended')
      } catch {
        if (!ac.signal.aborted) setStatus('ended')
      }
    })()
    return () => ac.abort()
  }, [current])

  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight
  }, [lines, follow])

  const download = () => {
    const url = URL.createObjectURL(new Blob([`${lines.join('\n')}\n`], { type: 'text/plain' }))
    const a = document.createElement('a')
    a.href = url
    a.download = `${current}-${new Date().toISOString().replace(/[:.]/g, '-')}.log`
    a.click()
    setTimeout(() => URL.revokeObjectURL(url), 1000)
  }

  return (
    <Page
      title="Logs"
      tabTitle={`Logs${current ? ` of ${current}` : ''}`}
      tools={
        <>
          <Field id={selectId} label="Slot" inline>
            <Select
              id={selectId}
              value={current ?? ''}
              choices={slots.map((s) => s.name)}
              onChange={(name) => navigate(`/logs/${name}`)}
            />
          </Field>
          <CheckField label="Scroll with new lines" checked={follow} onChange={setFollow} />
          <button type="button" class="svc-button" onClick={download} disabled={lines.length === 0}>
            Download
          </button>
        </>
      }
    >
      <p class="hint" role="status">
        {status === 'live'
          ? `Live · ${lines.length} line${lines.length === 1 ? '' : 's'} (the last ${MAX_LINES} are kept)`
          : status === 'connecting'
            ? 'Connecting…'
            : status === 'ended'
              ? 'The stream ended; reload the page to follow again.'
              : status}
      </p>
      {/* A scrollable region must be reachable by keyboard to be scrolled without a mouse. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable log, see above */}
      <div ref={box} class="log" role="log" aria-label={`Log of ${current ?? 'no slot'}`} tabIndex={0}>
        <pre>
          {lines.length
            ? lines.join('\n')
            : 'No output yet. An upstream that is not running has no log here.'}
        </pre>
      </div>
    </Page>
  )
}
