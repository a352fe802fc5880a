/**
 * ComfyUI's `/ws` (server.py `websocket_handler`): one socket per `clientId` (a reused
 * id replaces the older socket; none given → a fresh hex sid), a `status` frame on connect, the
 * `feature_flags` handshake, and `send(event, data, sid)` that broadcasts when `sid` is null and drops
 * the frame when that sid is not connected.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { type WebSocket, WebSocketServer } from 'ws'
import { isDict, PyFloat, parsePyJson, toPyJson } from './py-values'

/** What ComfyUI answers to a client's feature flags (comfy_api/feature_flags.py). */
export const SERVER_FEATURES = { supports_preview_metadata: true, max_upload_size: new PyFloat(104857600) }

export interface WsHub {
  /** Handles an HTTP upgrade for `/ws` (or `/api/ws`). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void
  /** Sends `{type, data}` to `sid`, or to every socket when `sid` is null. */
  send(type: string, data: unknown, sid: string | null): void
  /** Connected sids. */
  sids(): string[]
  close(): Promise<void>
}

export interface WsHubOptions {
  /** `{exec_info: {queue_remaining}}` for the first frame. */
  queueInfo(): unknown
  /** The node the current prompt is executing, if it was posted by `sid` (sent again on reconnect). */
  currentNodeFor(sid: string): string | null
}

export function createWsHub(options: WsHubOptions): WsHub {
  const wss = new WebSocketServer({ noServer: true })
  const sockets = new Map<string, WebSocket>()

  function sendTo(ws: WebSocket, type: string, data: unknown): void {
    if (ws.readyState === ws.OPEN) ws.send(toPyJson({ type, data }))
  }

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://stand-in')
    let sid = url.searchParams.get('clientId') ?? ''
    if (sid) sockets.get(sid)?.close()
    else sid = randomUUID().replaceAll('-', '')
    sockets.set(sid, ws)
    sendTo(ws, 'status', { status: options.queueInfo(), sid })
    const node = options.currentNodeFor(sid)
    if (node !== null) sendTo(ws, 'executing', { node })
    let first = true
    ws.on('message', (raw, isBinary) => {
      if (!first || isBinary) return
      first = false
      try {
        const msg = parsePyJson(raw.toString())
        if (isDict(msg) && msg.type === 'feature_flags') sendTo(ws, 'feature_flags', SERVER_FEATURES)
      } catch {
        // ComfyUI logs and ignores frames it cannot parse
      }
    })
    ws.on('close', () => {
      if (sockets.get(sid) === ws) sockets.delete(sid)
    })
  })

  return {
    upgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
    },
    send(type, data, sid) {
      if (sid === null) {
        for (const ws of sockets.values()) sendTo(ws, type, data)
        return
      }
      const ws = sockets.get(sid)
      if (ws) sendTo(ws, type, data)
    },
    sids: () => [...sockets.keys()],
    async close() {
      for (const ws of wss.clients) ws.terminate()
      sockets.clear()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    },
  }
}
