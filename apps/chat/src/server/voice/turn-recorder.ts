/**
 * A spoken turn as the Realtime API tells it, read from the events svc sends the browser: what the
 * person said (the input transcription of the committed audio) and what the model answered (the
 * audio transcript, or its text when it answered in text).
 */
export interface SpokenTurn {
  /** The person's words; empty when the transcription failed or heard nothing. */
  heard: string
  /** The answer's words as spoken; empty when the response was cancelled before any. */
  answer: string
  /** `completed`, or how it ended otherwise (`cancelled` by barge-in or Stop, `failed`, `incomplete`). */
  status: string
}

/**
 * Follows one Realtime session's server events and calls `onTurn` once per finished turn: a
 * `response.done` together with the transcription of the input it answers. A transcription may come
 * after the response that answers it (svc transcribes and answers at once); the turn is written when
 * both are known, in order. Responses with no audio input before them (a `response.create` after a
 * typed item) are turns with nothing heard.
 *
 * `observe` takes each server event's text; it parses only events it needs (audio deltas, the bulk of
 * the stream, are skipped by their type before any JSON is read). Never throws on bad input.
 */
export function createTurnRecorder(onTurn: (turn: SpokenTurn) => void) {
  /** Committed audio items, oldest first, with their transcript once known. */
  const inputs: { itemId: string; transcript: string | undefined }[] = []
  /** Finished responses waiting for their input's transcript. */
  const answered: { itemId: string | undefined; answer: string; status: string }[] = []
  /** The input the next response answers (the last committed item, taken by `response.created`). */
  let pendingInput: string | undefined
  let current: { itemId: string | undefined; text: string; audioText: string } | undefined

  const flush = () => {
    while (answered.length > 0) {
      const next = answered[0]!
      const input = next.itemId ? inputs.find((i) => i.itemId === next.itemId) : undefined
      if (input && input.transcript === undefined) return // wait for the words
      answered.shift()
      if (input) inputs.splice(inputs.indexOf(input), 1)
      onTurn({ heard: input?.transcript ?? '', answer: next.answer, status: next.status })
    }
  }

  return {
    observe(text: string): void {
      // The bulk of a session: audio, and transcript deltas (the final text comes in `.done`).
      if (text.length > 512 && text.slice(0, 200).includes('"response.output_audio.delta"')) return
      let event: Record<string, unknown>
      try {
        event = JSON.parse(text) as Record<string, unknown>
      } catch {
        return
      }
      const itemId = typeof event.item_id === 'string' ? event.item_id : undefined
      switch (event.type) {
        case 'input_audio_buffer.committed':
          if (itemId) {
            inputs.push({ itemId, transcript: undefined })
            pendingInput = itemId
          }
          break
        case 'conversation.item.input_audio_transcription.completed': {
          const input = inputs.find((i) => i.itemId === itemId)
          if (input) input.transcript = String(event.transcript ?? '').trim()
          flush()
          break
        }
        case 'conversation.item.input_audio_transcription.failed': {
          const input = inputs.find((i) => i.itemId === itemId)
          if (input) input.transcript = ''
          flush()
          break
        }
        case 'response.created':
          current = { itemId: pendingInput, text: '', audioText: '' }
          pendingInput = undefined
          break
        case 'response.output_audio_transcript.delta':
          if (current) current.audioText += String(event.delta ?? '')
          break
        case 'response.output_text.delta':
          if (current) current.text += String(event.delta ?? '')
          break
        // The whole text, when svc sends it, wins over the deltas.
        case 'response.output_audio_transcript.done':
          if (current && typeof event.transcript === 'string') current.audioText = event.transcript
          break
        case 'response.output_text.done':
          if (current && typeof event.text === 'string') current.text = event.text
          break
        case 'response.done': {
          const response = (event.response ?? {}) as { status?: unknown }
          const answer = (current?.audioText || current?.text || '').trim()
          answered.push({
            itemId: current?.itemId,
            answer,
            status: typeof response.status === 'string' ? response.status : 'completed',
          })
          current = undefined
          flush()
          break
        }
      }
    },
    /**
     * The session ended: an answer still being given is a turn cut short (`cancelled`, with what was
     * said of it), and turns still waiting for a transcript are written with what is known.
     */
    finish(): void {
      if (current) {
        const answer = (current.audioText || current.text).trim()
        answered.push({ itemId: current.itemId, answer, status: 'cancelled' })
        current = undefined
      }
      for (const input of inputs) input.transcript ??= ''
      flush()
    },
  }
}
