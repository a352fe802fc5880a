import { useId } from 'preact/hooks'
import { api, ok } from '../../api/client'
import { DataTable } from '../../components/data-table'
import { Fact } from '../../components/fact'
import { useFetch } from '../../hooks/use-fetch'

/** What this machine has, and per provider which backends svc offers here (and why not). */
export function HardwareSection() {
  const id = useId()
  const report = useFetch(() => ok(api.api.hardware.$get({ query: {} })), [])
  const r = report.data
  return (
    <section aria-labelledby={`${id}-title`} class="card">
      <h2 id={`${id}-title`}>Hardware</h2>
      {report.error ? <p role="alert">{report.error}</p> : null}
      {!r ? (
        report.error ? null : (
          <p>Detecting…</p>
        )
      ) : (
        <>
          <dl class="facts">
            <Fact term="GPUs (render nodes)">
              {r.hardware.vulkan.renderNodes.length
                ? r.hardware.vulkan.renderNodes.map((n) => `${n.path} (${n.vendor})`).join(', ')
                : 'none'}
            </Fact>
            <Fact term="ROCm (/dev/kfd)">{r.hardware.rocm.kfd ? 'yes' : 'no'}</Fact>
            <Fact term="NVIDIA">
              {r.hardware.cuda.devices.length ? r.hardware.cuda.devices.join(', ') : 'none'}
            </Fact>
            <Fact term="NPU">
              {r.hardware.npu.device ? (r.hardware.npu.driver ? 'yes' : 'device without driver') : 'none'}
            </Fact>
            <Fact term="Memory">
              {r.hardware.memory.totalGb !== null ? `${r.hardware.memory.totalGb} GB` : 'unknown'}
            </Fact>
            <Fact term="Container engine">
              {r.hardware.container.ok
                ? `yes (${r.hardware.container.version ?? 'version unknown'})`
                : `no${r.hardware.container.error ? `: ${r.hardware.container.error}` : ''}`}
            </Fact>
            <Fact term="Host engines">
              {Object.entries(r.hardware.engines)
                .map(([name, e]) => (e ? `${name} (${e.backends.join(', ')})` : `${name}: missing`))
                .join('; ')}
            </Fact>
          </dl>
          <DataTable
            caption="Backends per provider on this machine"
            showCaption
            class="backends"
            columns={['Provider', 'Backend', 'Offered', 'Runtimes, or why not']}
          >
            {Object.entries(r.providers).flatMap(([provider, backends]) =>
              Object.entries(backends).map(([backend, verdict]) => (
                <tr key={`${provider}-${backend}`}>
                  <th scope="row">{provider}</th>
                  <td data-label="Backend">
                    {backend}
                    {r.defaults[provider] === backend ? ' (default)' : ''}
                  </td>
                  <td data-label="Offered">{verdict?.ok ? 'yes' : 'no'}</td>
                  <td data-label={verdict?.ok ? 'Runtimes' : 'Why not'}>
                    {verdict?.ok ? verdict.runtimes.join(', ') : verdict?.reason}
                  </td>
                </tr>
              )),
            )}
          </DataTable>
        </>
      )}
    </section>
  )
}
