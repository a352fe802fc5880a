import { formatBytes } from '@svc/ui'
import { api, ok } from '../../api/client'
import { useFetch } from '../../hooks/use-fetch'

/**
 * What models take on disk: svc's downloads (and local files it points at), and the room left on
 * the state directory's file system. Refetched whenever `version` changes (a pull ended, a delete).
 */
export function DiskUse({ version }: { version: string }) {
  const disk = useFetch(() => ok(api.api.models.disk.$get()), [version])
  const d = disk.data
  if (!d) return null
  const parts = [`${formatBytes(d.models_bytes)} in ${d.models} downloaded model${d.models === 1 ? '' : 's'}`]
  if (d.local_bytes > 0) parts.push(`${formatBytes(d.local_bytes)} of local files`)
  if (d.free_bytes !== null && d.total_bytes !== null)
    parts.push(`${formatBytes(d.free_bytes)} free of ${formatBytes(d.total_bytes)}`)
  return <p class="disk-use">Disk: {parts.join(' · ')}</p>
}
