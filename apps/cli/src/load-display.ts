import type { Writable } from 'node:stream'
import { progressBar } from './format'

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/**
 * Shows a load as it happens: a progress bar while pulling, a spinner while starting/warming.
 * On a terminal one line is redrawn in place; otherwise (CI, pipes) each change is its own line and
 * progress is printed every 10 %.
 */
export class LoadDisplay {
  private state = ''
  private frame = 0
  private timer: NodeJS.Timeout | undefined
  private lastTenth = -1
  private line = ''

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly slot: string,
  ) {}

  transition(to: string, model: string | null): void {
    this.state = to
    if (this.out.isTTY) {
      if (to === 'starting' || to === 'warming') this.spin(`${to} ${model ?? ''}`)
      return
    }
    this.out.write(`${this.slot}: ${to}${model ? ` ${model}` : ''}\n`)
  }

  progress(done: number, total: number | null): void {
    if (this.out.isTTY) {
      this.stopSpin()
      this.draw(`pulling ${progressBar(done, total)}`)
      return
    }
    const tenth = total ? Math.floor((done / total) * 10) : -1
    if (tenth !== this.lastTenth) {
      this.lastTenth = tenth
      this.out.write(`${this.slot}: pulling ${progressBar(done, total, 20)}\n`)
    }
  }

  /** Clears the live line; the caller prints the outcome. */
  end(): void {
    this.stopSpin()
    if (this.out.isTTY && this.line) this.out.write('\r\x1b[2K')
    this.line = ''
  }

  private spin(label: string): void {
    this.stopSpin()
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % SPINNER.length
      this.draw(`${SPINNER[this.frame]} ${label}`)
    }, 80)
    this.draw(`${SPINNER[this.frame]} ${label}`)
  }

  private stopSpin(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  private draw(text: string): void {
    this.line = `${this.slot}: ${text}`
    this.out.write(`\r\x1b[2K${this.line}`)
  }

  get current(): string {
    return this.state
  }
}
