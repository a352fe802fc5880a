import { useId } from 'preact/hooks'
import { api, ok } from '../../api/client'
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
            <div>
              <dt>GPUs (render nodes)</dt>
              <dd>
                {r.hardware.vulkan.renderNodes.length
                  ? r.hardware.vulkan.renderNodes.map((n) => `${n.path} (${n.vendor})`).join(', ')
                  : 'none'}
              </dd>
            </div>
            <div>
              <dt>ROCm (/dev/kfd)</dt>
              <dd>{r.hardware.rocm.kfd ? 'yes' : 'no'}</dd>
            </div>
            <div>
              <dt>NVIDIA</dt>
              <dd>{r.hardware.cuda.devices.length ? r.hardware.cuda.devices.join(', ') : 'none'}</dd>
            </div>
            <div>
              <dt>NPU</dt>
              <dd>
                {r.hardware.npu.device ? (r.hardware.npu.driver ? 'yes' : 'device without driver') : 'none'}
              </dd>
            </div>
            <div>
              <dt>Memory</dt>
              <dd>{r.hardware.memory.totalGb !== null ? `${r.hardware.memory.totalGb} GB` : 'unknown'}</dd>
            </div>
            <div>
              <dt>Container engine</dt>
              <dd>
                {r.hardware.container.ok
                  ? `yes (${r.hardware.container.version ?? 'version unknown'})`
                  : `no${r.hardware.container.error ? `: ${r.hardware.container.error}` : ''}`}
              </dd>
            </div>
            <div>
              <dt>Host engines</dt>
              <dd>
                {Object.entries(r.hardware.engines)
                  .map(([name, e]) => (e ? `${name} (${e.backends.join(', ')})` : `${name}: missing`))
                  .join('; ')}
              </dd>
            </div>
          </dl>
          <div class="table-wrap">
            <table>
              <caption>Backends per provider on this machine</caption>
              <thead>
                <tr>
                  <th scope="col">Provider</th>
                  <th scope="col">Backend</th>
                  <th scope="col">Offered</th>
                  <th scope="col">Runtimes, or why not</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(r.providers).flatMap(([provider, backends]) =>
                  Object.entries(backends).map(([backend, verdict]) => (
                    <tr key={`${provider}-${backend}`}>
                      <th scope="row">{provider}</th>
                      <td>
                        {backend}
                        {r.defaults[provider] === backend ? ' (default)' : ''}
                      </td>
                      <td>{verdict?.ok ? 'yes' : 'no'}</td>
                      <td>{verdict?.ok ? verdict.runtimes.join(', ') : verdict?.reason}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  )
}
