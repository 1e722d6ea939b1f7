// Dashboard entry: signs in or renders the shell, and keeps the one WebSocket connected with the signed-in token.
import { effect } from '@preact/signals';
import { render } from 'preact';
import { token } from './lib/auth';
import { stopBudgetAlerts } from './lib/budget-alerts';
import { stopEvents } from './lib/live-events';
import { connect } from './lib/rpc';
import { applyTheme, theme } from './lib/theme';
import { Shell } from './shell';
import { SignIn } from './sign-in';
import './styles.css';

applyTheme(theme.value);
effect(() => {
  connect(token.value);
  if (token.value === null) {
    stopBudgetAlerts();
    stopEvents();
  }
});

function App() {
  return token.value === null ? <SignIn /> : <Shell />;
}

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
