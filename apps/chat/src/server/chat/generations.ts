/** Why a running answer was cut short; the abort reason tells how to mark the message. */
export type StopReason = 'stop' | 'client-gone' | 'shutdown'

/**
 * The answers being written right now, one per conversation at most (a second Send while one runs
 * is refused, so two tabs cannot interleave two answers). Stop and shutdown abort through here.
 */
export function createGenerations() {
  const running = new Map<string, AbortController>()
  return {
    /** Claims the conversation; undefined when an answer is already being written there. */
    begin(conversationId: string): AbortController | undefined {
      if (running.has(conversationId)) return undefined
      const controller = new AbortController()
      running.set(conversationId, controller)
      return controller
    },
    end(conversationId: string, controller: AbortController): void {
      if (running.get(conversationId) === controller) running.delete(conversationId)
    },
    /** Stops the answer being written in the conversation; false when none was. */
    stop(conversationId: string, reason: StopReason = 'stop'): boolean {
      const controller = running.get(conversationId)
      controller?.abort(reason)
      return controller !== undefined
    },
    isRunning(conversationId: string): boolean {
      return running.has(conversationId)
    },
    stopAll(reason: StopReason): void {
      for (const controller of running.values()) controller.abort(reason)
    },
    get size(): number {
      return running.size
    },
  }
}

export type Generations = ReturnType<typeof createGenerations>
