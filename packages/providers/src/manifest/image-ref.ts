/**
 * Image repository names as Docker spells them (`docker.io/kyuz0/x`, `ghcr.io/a/b`, `localhost:5000/c`,
 * bare `ubuntu`), split into what the Registry HTTP API v2 needs: the registry's base URL and the
 * repository name inside it.
 */

export interface RegistryRepository {
  /** Host (and port) as written, with Docker Hub's aliases folded to `docker.io`. */
  domain: string
  /** Base URL of the registry API: `https://registry-1.docker.io`, `http://127.0.0.1:5000`. */
  registry: URL
  /** Repository path inside the registry (`library/ubuntu`, `kyuz0/amd-strix-halo-toolboxes`). */
  name: string
}

const DOCKER_HUB = 'docker.io'
const DOCKER_HUB_API = 'https://registry-1.docker.io'

/** True for registries that speak plain http: loopback addresses only (`localhost`, `127.x`, `[::1]`). */
export function isLoopbackRegistry(domain: string): boolean {
  const host = domain.startsWith('[') ? domain.slice(0, domain.indexOf(']') + 1) : domain.split(':')[0]
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host ?? '')
}

/**
 * Splits a repository name. The first path component is a registry host when it contains a `.` or a
 * `:` or is `localhost` (Docker's rule); otherwise the name lives on Docker Hub, where single-component
 * names are official images under `library/`.
 */
export function parseRepository(repository: string): RegistryRepository {
  const slash = repository.indexOf('/')
  const first = slash === -1 ? '' : repository.slice(0, slash)
  const hasDomain = first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost')
  let domain = hasDomain ? first : DOCKER_HUB
  let name = hasDomain ? repository.slice(slash + 1) : repository
  if (domain === 'index.docker.io' || domain === 'registry-1.docker.io') domain = DOCKER_HUB
  if (domain === DOCKER_HUB && !name.includes('/')) name = `library/${name}`
  const registry =
    domain === DOCKER_HUB
      ? new URL(DOCKER_HUB_API)
      : new URL(`${isLoopbackRegistry(domain) ? 'http' : 'https'}://${domain}`)
  return { domain, registry, name }
}
