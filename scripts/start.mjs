#!/usr/bin/env node
// `pnpm start`: one small launcher that starts the API (:8080) and the chat app (:3001) side by side
// and forwards signals to both. Plain node, so it can later point at built JS with no tsx at all.
//
// - SIGTERM and SIGINT go to both (SIGHUP as SIGTERM); the launcher exits once both have stopped (0 when they
//   stopped cleanly).
// - The API is the product: when it exits on its own, the chat app is stopped and the launcher exits
//   with the API's code. When the chat app exits on its own (say, port 3001 is taken) the API keeps
//   running and the launcher says so on stderr.
// - SVC_START_CHAT=0 starts the API alone.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const children = new Map()

function start(name, args) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: process.env })
  children.set(name, child)
  child.on('exit', (code, signal) => {
    children.delete(name)
    if (stopping) {
      if (code !== 0 && exitCode === 0) exitCode = code ?? 1
      if (children.size === 0) process.exit(exitCode)
      return
    }
    if (name === 'api') {
      process.stderr.write(`svc: the API exited (${signal ?? code}); stopping the chat app\n`)
      exitCode = code ?? 1
      stopAll('SIGTERM')
    } else {
      process.stderr.write(`svc: the chat app exited (${signal ?? code}); the API keeps running\n`)
    }
  })
  return child
}

let stopping = false
let exitCode = 0
function stopAll(signal) {
  stopping = true
  if (children.size === 0) process.exit(exitCode)
  for (const child of children.values()) child.kill(signal)
}

process.on('SIGTERM', () => stopAll('SIGTERM'))
process.on('SIGINT', () => stopAll('SIGINT'))
process.on('SIGHUP', () => stopAll('SIGTERM'))

// The chat app calls the API where this launcher started it, unless told otherwise.
const env = process.env
if (!env.SVC_CHAT_API_URL && env.SVC_PORT && env.SVC_PORT !== '0') {
  const host = !env.SVC_HOST || ['0.0.0.0', '::'].includes(env.SVC_HOST) ? '127.0.0.1' : env.SVC_HOST
  env.SVC_CHAT_API_URL = `http://${host.includes(':') ? `[${host}]` : host}:${env.SVC_PORT}`
}

start('api', ['--import', 'tsx', 'apps/api/src/serve.ts'])
if (env.SVC_START_CHAT !== '0') start('chat', ['apps/chat/bin/svc-chat.js'])
