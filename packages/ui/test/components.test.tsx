// @vitest-environment happy-dom
import { SLOT_STATES } from '@svc/core'
import { cleanup, fireEvent, render, screen } from '@testing-library/preact'
import { useState } from 'preact/hooks'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ConfirmDialog,
  CopyOnceDialog,
  ProgressBar,
  Select,
  STATE_LOOK,
  StateBadge,
  ToastProvider,
  useToasts,
} from '../src/index'

afterEach(cleanup)

describe('StateBadge', () => {
  it.each(SLOT_STATES)('shows %s as a word and a glyph, not colour alone', (state) => {
    render(<StateBadge state={state} detail="2 in flight" />)
    const badge = screen.getByText(STATE_LOOK[state].label)
    expect(badge.textContent).toContain(STATE_LOOK[state].glyph)
    expect(badge.textContent).toContain('2 in flight')
    // Its colour is the state's own themable property.
    expect(badge.style.getPropertyValue('--svc-badge-color')).toBe(`var(--svc-state-${state})`)
  })

  it('gives every state its own word and glyph', () => {
    const looks = SLOT_STATES.map((s) => STATE_LOOK[s])
    expect(new Set(looks.map((l) => l.label)).size).toBe(SLOT_STATES.length)
    expect(new Set(looks.map((l) => l.glyph)).size).toBe(SLOT_STATES.length)
  })
})

describe('Select', () => {
  it('lists the blank entry first, shows labels, and reports the chosen value', () => {
    const onChange = vi.fn()
    render(
      <>
        <label for="restart">Restart</label>
        <Select
          id="restart"
          value=""
          choices={[{ value: 'on-failure', label: 'on failure' }, 'no']}
          blank="default"
          onChange={onChange}
        />
      </>,
    )
    const select = screen.getByLabelText('Restart') as HTMLSelectElement
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      ['', 'default'],
      ['on-failure', 'on failure'],
      ['no', 'no'],
    ])
    fireEvent.change(select, { target: { value: 'on-failure' } })
    expect(onChange).toHaveBeenCalledWith('on-failure')
  })
})

describe('ProgressBar', () => {
  it('shows bytes, percent, speed and time left once it has two samples', () => {
    const { rerender } = render(<ProgressBar label="Pulling tiny" done={0} total={10_000_000} at={0} />)
    expect(screen.getByText('0 B of 10.0 MB · 0%')).toBeTruthy()
    rerender(<ProgressBar label="Pulling tiny" done={2_000_000} total={10_000_000} at={1000} />)
    expect(screen.getByText('2.0 MB of 10.0 MB · 20% · 2.0 MB/s · 4 s left')).toBeTruthy()
    const bar = screen.getByRole('progressbar', { name: 'Pulling tiny' }) as HTMLProgressElement
    expect(bar.value).toBe(2_000_000)
  })

  it('is indeterminate when the total is unknown', () => {
    render(<ProgressBar label="Pulling" done={1500} total={null} at={0} />)
    expect(screen.getByText('1.5 KB')).toBeTruthy()
    expect(screen.getByRole('progressbar').hasAttribute('value')).toBe(false)
  })
})

describe('ConfirmDialog', () => {
  it('calls back for the confirming button, and for Cancel', () => {
    const onConfirm = vi.fn()
    const onCancel = vi.fn()
    render(
      <ConfirmDialog
        title="Unload primary?"
        confirmLabel="Unload"
        danger
        onConfirm={onConfirm}
        onCancel={onCancel}
      >
        2 requests are in flight.
      </ConfirmDialog>,
    )
    expect(screen.getByRole('dialog', { name: 'Unload primary?' })).toBeTruthy()
    expect(screen.getByText('2 requests are in flight.')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Unload' }))
    expect(onConfirm).toHaveBeenCalledOnce()
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(onCancel).toHaveBeenCalledOnce()
  })

  it('treats Escape as Cancel', () => {
    const onCancel = vi.fn()
    render(
      <ConfirmDialog title="Sure?" confirmLabel="Do it" onConfirm={() => undefined} onCancel={onCancel}>
        x
      </ConfirmDialog>,
    )
    screen.getByRole('dialog').dispatchEvent(new Event('cancel', { cancelable: true }))
    expect(onCancel).toHaveBeenCalledOnce()
  })
})

describe('CopyOnceDialog', () => {
  function Host({ secret }: { secret: string }) {
    const [value, setValue] = useState<string | null>(secret)
    return value ? (
      <CopyOnceDialog
        title="New token"
        secret={value}
        warning="Shown only once."
        onClose={() => setValue(null)}
      />
    ) : (
      <p>closed</p>
    )
  }

  it('shows the value with its warning, copies it, and leaves no trace once closed', async () => {
    const copied: string[] = []
    document.execCommand = ((command: string) => {
      const area = document.activeElement as HTMLTextAreaElement | null
      if (command === 'copy') copied.push(document.querySelector('textarea')?.value ?? area?.value ?? '')
      return true
    }) as typeof document.execCommand
    const secret = 'svc_abcdefghijkl.0123456789abcdefghijklmnopqrstuvwxyzABCDEFG'
    render(<Host secret={secret} />)
    expect(screen.getByText('Shown only once.')).toBeTruthy()
    expect(screen.getByText(secret).tagName).toBe('PRE')
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }))
    await screen.findByRole('button', { name: 'Copied' })
    expect(copied).toEqual([secret])
    fireEvent.click(screen.getByRole('button', { name: 'Close' }))
    await screen.findByText('closed')
    expect(document.body.innerHTML).not.toContain(secret)
  })
})

describe('toasts', () => {
  function Buttons() {
    const toasts = useToasts()
    return (
      <>
        <button type="button" onClick={() => toasts.show('success', 'Loaded primary', 50)}>
          ok
        </button>
        <button type="button" onClick={() => toasts.show('error', 'Load failed')}>
          fail
        </button>
      </>
    )
  }

  it('shows messages in a live region; success fades, errors stay until dismissed', async () => {
    render(
      <ToastProvider>
        <Buttons />
      </ToastProvider>,
    )
    fireEvent.click(screen.getByText('ok'))
    fireEvent.click(screen.getByText('fail'))
    const region = screen.getByRole('region', { name: 'Notifications' })
    expect(region.textContent).toContain('Loaded primary')
    expect(screen.getByRole('alert').textContent).toContain('Load failed')
    await vi.waitFor(() => expect(region.textContent).not.toContain('Loaded primary'))
    expect(region.textContent).toContain('Load failed')
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss notification' }))
    expect(region.textContent).not.toContain('Load failed')
  })
})
