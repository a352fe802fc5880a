/**
 * Copies text to the clipboard. `navigator.clipboard` exists only in secure contexts (https or
 * localhost); svc is often opened as `http://<lan-address>:8080`, so the fallback selects a hidden
 * textarea and uses `execCommand('copy')`. Resolves true when the browser says it copied.
 */
export async function copyText(text: string): Promise<boolean> {
  if (globalThis.isSecureContext && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text)
      return true
    } catch {
      // permission refused: try the fallback
    }
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.style.position = 'fixed'
  area.style.opacity = '0'
  document.body.append(area)
  area.select()
  try {
    return document.execCommand('copy')
  } catch {
    return false
  } finally {
    area.value = ''
    area.remove()
  }
}
