#!/usr/bin/env node
// `pnpm bench`'s Node ceiling: the least a Node proxy can do — one keep-alive agent, the body piped
// both ways, nothing parsed. svc's hop is measured against it. Usage: node node-proxy.mjs <port> <upstream>
import { Agent, createServer, request } from 'node:http'

const [port, upstream] = [Number(process.argv[2]), new URL(process.argv[3])]
const agent = new Agent({ keepAlive: true, maxSockets: 256 })
createServer((req, res) => {
  const out = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: req.url,
      method: req.method,
      headers: req.headers,
      agent,
    },
    (up) => {
      res.writeHead(up.statusCode, up.headers)
      up.pipe(res)
    },
  )
  out.on('error', () => res.destroy())
  req.pipe(out)
}).listen(port, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${port}\n`))
