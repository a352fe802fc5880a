/**
 * The classes every request falls into (what a scope is allowed is decided per class, in
 * `policy.ts`; which paths fall into which class there and in `ollama-routes.ts`). A leaf: both
 * classifiers import it, neither imports the other's types.
 */
export const ROUTE_CLASSES = [
  'open',
  'v1-models',
  'v1-inference',
  'image-cache',
  'api-read',
  'dashboard',
  'slot-mutation',
  'token-management',
  'api-mutation',
] as const
export type RouteClass = (typeof ROUTE_CLASSES)[number]
