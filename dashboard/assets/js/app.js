// The dashboard shell: session, sign-out, tabs and the hash routes
// (#service-accounts, #service-accounts/new, #oauth-clients, #oauth-clients/new).
import { api, loadSession } from './api.js';
import { h, replaceChildren } from './dom.js';
import { oauthClientsTab } from './oauth-clients.js';
import { serviceAccountsTab } from './service-accounts.js';
import { setUpTabs } from './tabs.js';

const TABS = ['service-accounts', 'oauth-clients'];

function parseHash() {
  const [tab, view] = window.location.hash.replace(/^#/, '').split('/');
  return { tab: TABS.includes(tab) ? tab : TABS[0], view: view === 'new' ? 'new' : 'list' };
}

async function main() {
  const session = await loadSession();
  document.getElementById('signed-in-as').textContent = session.user;
  document.getElementById('sign-out').addEventListener('click', async () => {
    try {
      await api.post('/dashboard/api/sign-out');
    } finally {
      window.location.assign('/dashboard/sign-in?reason=signed-out');
    }
  });

  const vocabulary = await api.get('/dashboard/api/vocabulary');
  const views = {
    'service-accounts': serviceAccountsTab(document.getElementById('panel-service-accounts'), vocabulary),
    'oauth-clients': oauthClientsTab(document.getElementById('panel-oauth-clients'), vocabulary),
  };
  const route = () => {
    const { tab, view } = parseHash();
    tabs.mark(tab);
    views[tab].show(view);
  };
  // Choosing a tab always lands on its list, even when the URL already names it.
  const tabs = setUpTabs(document.querySelector('[role="tablist"]'), (tab) => {
    if (window.location.hash === `#${tab}`) route();
    else window.location.hash = tab;
  });
  window.addEventListener('hashchange', route);
  route();
}

main().catch((error) => {
  if (error.code === 'admin_unauthorized') return; // api.js is already on its way to sign-in
  replaceChildren(
    document.getElementById('main'),
    h('div', { class: 'alert alert-error', role: 'alert' }, h('strong', {}, 'The dashboard could not load.'), error.message),
  );
});
