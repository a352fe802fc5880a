/**
 * The svc server entry: the only place that reads the environment. Listens on SVC_HOST:SVC_PORT; on
 * SIGTERM/SIGINT stops accepting, drains in-flight requests for up to SVC_DRAIN_SECONDS, stops every
 * upstream it started, and exits 0.
 */

import { setFlagsFromString } from 'node:v8'
import { runServer } from '@svc/core/node'
import { readServeEnv } from './env'
import { startSvc } from './server'

/**
 * V8 "pretenures" an allocation site (allocates its objects straight in the old generation) once most
 * of its objects have survived a young-generation GC. Under load some per-request site crosses that
 * line; from then on each request's short-lived objects are reachable from an old object, so every
 * scavenge copies and promotes whole requests (≈6 KB each) and young-generation GC became ~15 % of
 * svc's CPU per relayed request (measured with --trace-gc-nvp: promoted bytes per request 6.2 KB with
 * it, 0.3 KB without). svc's long-lived data is built once at start, so it loses nothing by keeping
 * every allocation young. Set before any request runs.
 */
function keepRequestsYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring')
}

keepRequestsYoung()
void runServer({ name: 'svc', environment: process.env, readEnv: readServeEnv, start: startSvc })
