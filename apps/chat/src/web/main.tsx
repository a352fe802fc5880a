import '@svc/ui/styles.css'
import './chat.css'
import { ToastProvider } from '@svc/ui'
import { render } from 'preact'
import { App } from './components/app'

render(
  <ToastProvider>
    <App />
  </ToastProvider>,
  document.getElementById('app')!,
)
