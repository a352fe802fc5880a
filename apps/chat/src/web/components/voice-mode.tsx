import { startVoice, stopVoice } from '../voice/voice-session'
import { useVoice, type VoicePhase } from '../voice/voice-store'
import './voice-mode.css'

const SAYS: Record<Exclude<VoicePhase, 'off'>, string> = {
  connecting: 'Connecting…',
  listening: 'Listening…',
  thinking: 'Thinking…',
  speaking: 'Speaking…',
}

/**
 * Talk: starts voice mode (offered when svc can hear, answer and speak: the `stt` and `tts` slots
 * answer and the chosen model may be sent to). Hidden while voice mode runs; its panel has Stop.
 */
export function TalkButton() {
  const phase = useVoice((v) => v.phase)
  if (phase !== 'off') return null
  return (
    <button
      type="button"
      class="svc-button chat-talk"
      title="Talk with the model: speak, pause, and hear the answer"
      onClick={() => void startVoice()}
    >
      <span aria-hidden="true">🎙 </span>Talk
    </button>
  )
}

/**
 * Voice mode, above the message box while it runs: where the turn is (listening, thinking,
 * speaking), what svc heard and the answer's words as they are spoken, and Stop. Each finished turn
 * also lands in the conversation.
 */
export function VoicePanel() {
  const phase = useVoice((v) => v.phase)
  const heard = useVoice((v) => v.heard)
  const answer = useVoice((v) => v.answer)
  if (phase === 'off') return null
  return (
    <section class="chat-voice" aria-label="Voice mode" data-phase={phase}>
      <div class="chat-voice-bar">
        <span class="chat-voice-state" role="status">
          <span class="chat-voice-dot" aria-hidden="true" />
          {SAYS[phase]}
        </span>
        {phase === 'listening' && !heard ? (
          <span class="chat-voice-hint">Speak, then pause: the answer is spoken.</span>
        ) : null}
        <button type="button" class="svc-button svc-button-danger" onClick={stopVoice}>
          Stop voice
        </button>
      </div>
      {heard || answer ? (
        <div class="chat-voice-lines">
          {heard ? (
            <p>
              <strong>You:</strong> {heard}
            </p>
          ) : null}
          {answer ? (
            <p>
              <strong>Assistant:</strong> {answer}
            </p>
          ) : null}
        </div>
      ) : null}
    </section>
  )
}
