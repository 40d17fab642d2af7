// Settings -> API Credentials -> Service accounts: list, create (Access ID shown once), delete.
import { api } from './api.js';
import { announce, h, replaceChildren } from './dom.js';
import { checkboxGroup, checkedValues, chips, emptyState, formSummary, linkButton, panelHeader, routesText, secretReveal, textField } from './components.js';
import { confirmDialog } from './confirm-dialog.js';
import { clearErrors, clearErrorsOnEdit, showApiError, showFieldError } from './form-errors.js';
import { timeElement } from './format.js';

const LIST_PATH = '/admin/v1/service-accounts';
/** Permissions that move money get a visible mark, to make over-granting stand out. */
const MONEY_MOVING = new Set(['initiate_payment', 'cancel_scheduled_payments', 'refund_transaction']);

/**
 * The list's partly hidden Access ID (only the 201 response ever carries it in full). The API's
 * hint is "1a2b3c4d-****-****-****-************"; its visible part is enough to tell accounts apart.
 */
function maskedAccessId(account) {
  const visible = account.access_id_hint.replace(/[-*]+$/, '');
  return `${visible}-****…`;
}

function splitIps(text) {
  return text.split(/[\s,]+/).map((part) => part.trim()).filter(Boolean);
}

export function serviceAccountsTab(panel, vocabulary) {
  const defaultIps = vocabulary.default_allowed_ips.join(', ');

  function header() {
    return panelHeader({
      title: 'Service accounts',
      description: 'Credentials for the banking API. A program signs each request with its Ed25519 private key and sends the Access ID in the x-access-id header; the gateway checks the signature, the permissions and the allowed IPs.',
      action: linkButton('#service-accounts/new', 'Create service account'),
    });
  }

  /** `notice`: { kind: 'success' | 'error', text } shown above the list. */
  async function showList(notice) {
    const status = h('div', { role: 'status', 'aria-live': 'polite' });
    const body = h('div', { class: 'card', 'aria-busy': 'true' }, h('p', { class: 'card-body muted' }, 'Loading service accounts…'));
    replaceChildren(panel, header(), status, body);
    if (notice) replaceChildren(status, h('div', { class: `alert alert-${notice.kind}` }, notice.text));
    let accounts;
    try {
      ({ service_accounts: accounts } = await api.get(LIST_PATH));
    } catch (error) {
      replaceChildren(body, h('div', { class: 'card-body' }, h('div', { class: 'alert alert-error', role: 'alert' }, h('strong', {}, 'The service accounts could not be loaded.'), error.message)));
      body.removeAttribute('aria-busy');
      return;
    }
    body.removeAttribute('aria-busy');
    if (accounts.length === 0) {
      replaceChildren(
        body,
        emptyState({
          title: 'No service accounts yet',
          text: 'Create one for each program that calls the banking API, with only the permissions it needs.',
          action: linkButton('#service-accounts/new', 'Create service account'),
        }),
      );
      return;
    }
    replaceChildren(body, h('div', { class: 'table-wrap' }, accountsTable(accounts)));
  }

  function accountsTable(accounts) {
    return h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, `Service accounts (${accounts.length})`),
      h('thead', {}, h('tr', {}, ['Description', 'Access ID', 'Permissions', 'Allowed IPs', 'Created', 'Last used'].map((t) => h('th', { scope: 'col' }, t)), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
      h('tbody', {}, accounts.map(accountRow)),
    );
  }

  function accountRow(account) {
    const anyAddress = account.allowed_ips.length === 0 || account.allowed_ips.join(',') === vocabulary.default_allowed_ips.join(',');
    return h(
      'tr',
      { 'data-id': account.id },
      h('td', {}, h('div', { class: 'cell-title' }, account.description), h('div', { class: 'cell-sub fingerprint', title: `Key fingerprint ${account.fingerprint}` }, account.fingerprint)),
      h('td', {}, h('span', { class: 'masked', title: 'Shown in full only once, when the account was created' }, maskedAccessId(account))),
      h('td', {}, chips(account.permissions, MONEY_MOVING)),
      h('td', {}, anyAddress ? h('span', { class: 'ip-any' }, 'Any address') : h('ul', { class: 'ip-list' }, account.allowed_ips.map((ip) => h('li', {}, ip)))),
      h('td', {}, timeElement(account.created_at)),
      h('td', {}, account.last_used_at ? [timeElement(account.last_used_at, 'relative'), account.last_used_ip ? h('div', { class: 'cell-sub nowrap' }, `from ${account.last_used_ip}`) : null] : h('span', { class: 'muted' }, 'Never')),
      h(
        'td',
        { class: 'actions-cell' },
        h('button', { type: 'button', class: 'button button-small button-danger-outline', on: { click: () => deleteAccount(account) } }, 'Delete', h('span', { class: 'visually-hidden' }, ` service account ${account.description}`)),
      ),
    );
  }

  async function deleteAccount(account) {
    const confirmed = await confirmDialog({
      title: 'Delete service account?',
      body: [
        h('p', {}, 'The service account “', h('strong', {}, account.description), '” (Access ID ', h('span', { class: 'masked' }, maskedAccessId(account)), ') will be deleted.'),
        h('p', { class: 'dialog-warning' }, 'Deletion is immediate and permanent: from now on every request with this Access ID is rejected with 401 Unauthorized. It cannot be undone.'),
      ],
      confirmLabel: 'Delete permanently',
    });
    if (!confirmed) return;
    try {
      await api.delete(`${LIST_PATH}/${encodeURIComponent(account.id)}`);
    } catch (error) {
      // 404: someone else deleted it first, which is what was asked for.
      if (error.status !== 404) {
        announce(`Delete failed: ${error.message}`);
        await showList({ kind: 'error', text: `The service account could not be deleted: ${error.message}` });
        return;
      }
    }
    announce(`Service account ${account.description} deleted.`);
    await showList({ kind: 'success', text: `Service account “${account.description}” was deleted. Requests with its Access ID are now rejected.` });
  }

  function permissionsGroup() {
    return checkboxGroup({
      id: 'sa-permissions',
      field: 'permissions',
      legend: 'Permissions',
      hint: h(
        'div',
        { id: 'sa-permissions-hint', class: 'alert alert-info' },
        h('strong', {}, 'Grant only what this program needs.'),
        'Least privilege limits what a leaked key can do. Permissions cannot be changed later: create a new service account instead.',
      ),
      options: vocabulary.permissions.map((p) => ({
        value: p.name,
        title: p.meaning,
        badge: MONEY_MOVING.has(p.name) ? h('span', { class: 'chip chip-risk' }, 'moves money') : null,
        details: [h('span', { class: 'option-meta' }, p.name), h('span', { class: 'option-routes' }, routesText(p.routes))],
      })),
    });
  }

  function showCreate() {
    const form = h(
      'form',
      { novalidate: true, 'aria-labelledby': 'sa-create-title' },
      h('h2', { id: 'sa-create-title' }, 'Create service account'),
      h('p', { class: 'intro' }, 'The Access ID is generated by the gateway and shown once, after you create the account.'),
      formSummary(),
      textField({ id: 'sa-description', field: 'description', label: 'Description', hint: 'A name that says which program uses this credential, e.g. “Payroll export (production)”.', attributes: { maxlength: '200', required: true } }),
      textField({
        id: 'sa-public-key',
        field: 'public_key',
        label: 'Public key',
        multiline: true,
        mono: true,
        hint: [
          'The Ed25519 public key in OpenSSH form: one line that starts with ',
          h('code', {}, 'ssh-ed25519'),
          '. Create a key pair with ',
          h('code', {}, 'ssh-keygen -t ed25519 -f banking-key'),
          ' (or ',
          h('code', {}, 'gatewayctl keygen'),
          ') and paste the contents of the .pub file. The private key stays with the program: never paste it here.',
        ],
        attributes: { rows: '3', required: true, placeholder: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… payroll-export' },
      }),
      permissionsGroup(),
      textField({
        id: 'sa-allowed-ips',
        field: 'allowed_ips',
        label: 'Allowed IPs',
        optional: true,
        multiline: true,
        mono: true,
        hint: [`One per line or comma-separated: an IPv4 address, an IPv4 CIDR range or an IPv6 address. Leave empty to accept requests from any address (default: `, h('code', {}, defaultIps), ').'],
        attributes: { rows: '3', placeholder: '203.0.113.10\n198.51.100.0/24\n2001:db8::10' },
      }),
      textField({ id: 'sa-account-id', field: 'account_id', label: 'Account ID', optional: true, hint: 'Passed to the banking API in x-gateway-account-id, to tie this credential to an account.', attributes: { maxlength: '200' } }),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button button-primary' }, 'Create service account'), linkButton('#service-accounts', 'Cancel', 'button')),
    );
    clearErrorsOnEdit(form);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void submitCreate(form);
    });
    replaceChildren(panel, h('div', { class: 'card form-card' }, h('div', { class: 'card-body' }, form)));
    form.querySelector('#sa-description').focus();
  }

  /** Checks that need no round trip; the API's own checks still decide. */
  function checkLocally(form, body) {
    if (!body.description) return showFieldError(form, 'description', 'Enter a description.');
    if (/PRIVATE KEY/.test(body.public_key)) return showFieldError(form, 'public_key', 'This is a private key. Paste the public key (the .pub file) instead, and keep the private key secret.');
    if (!body.public_key) return showFieldError(form, 'public_key', 'Paste the public key: one line starting with ssh-ed25519.');
    if (body.permissions.length === 0) return showFieldError(form, 'permissions', 'Choose at least one permission.');
    return false;
  }

  async function submitCreate(form) {
    clearErrors(form);
    const value = (id) => form.querySelector(id).value.trim();
    const body = { description: value('#sa-description'), public_key: value('#sa-public-key'), permissions: checkedValues(form, 'permissions') };
    const ips = splitIps(value('#sa-allowed-ips'));
    if (ips.length > 0) body.allowed_ips = ips;
    if (value('#sa-account-id')) body.account_id = value('#sa-account-id');
    if (checkLocally(form, body)) return;
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      const created = await api.post(LIST_PATH, body);
      showCreated(created);
    } catch (error) {
      showApiError(form, error);
    } finally {
      submit.disabled = false;
    }
  }

  function showCreated(account) {
    // The URL leaves the form, so a reload shows the list, where the Access ID is hidden.
    history.replaceState(null, '', '#service-accounts');
    const done = h('button', { type: 'button', class: 'button button-primary', on: { click: () => void showList() } }, 'Done');
    replaceChildren(
      panel,
      h(
        'div',
        { class: 'card form-card' },
        h(
          'div',
          { class: 'card-body' },
          h('div', { class: 'alert alert-success', role: 'status' }, h('strong', { tabindex: '-1', id: 'sa-created-title' }, 'Service account created'), `“${account.description}” can now sign requests to the banking API.`),
          secretReveal({ id: 'created-access-id', label: 'Access ID', value: account.access_id }),
          h('div', { class: 'alert alert-warning', role: 'note' }, h('strong', {}, 'Copy the Access ID now: it will not be shown again.'), 'The program sends it in the x-access-id header. If it is lost, delete this service account and create a new one.'),
          h(
            'dl',
            { class: 'details' },
            h('dt', {}, 'Description'), h('dd', {}, account.description),
            h('dt', {}, 'Key fingerprint'), h('dd', { class: 'mono' }, account.fingerprint ?? ''),
            h('dt', {}, 'Permissions'), h('dd', {}, chips(account.permissions, MONEY_MOVING)),
            h('dt', {}, 'Allowed IPs'), h('dd', { class: 'mono' }, account.allowed_ips.join(', ')),
          ),
          h('div', { class: 'actions' }, done),
        ),
      ),
    );
    announce('Service account created. Copy the Access ID now: it will not be shown again.');
    document.getElementById('sa-created-title').focus();
  }

  return {
    show(view) {
      if (view === 'new') showCreate();
      else void showList();
    },
  };
}
