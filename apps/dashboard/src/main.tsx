import '@svc/ui/styles.css'
import './styles.css'
import './content.css'
import { render } from 'preact'
import { App } from './app'

render(<App />, document.getElementById('app')!)
