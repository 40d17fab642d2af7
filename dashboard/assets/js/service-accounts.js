// Settings -> API Credentials -> Service accounts: list, create (Access ID shown once, optional
// expiry), keys (add a second key, remove one of two: key rotation), delete.
import { api } from './api.js';
import { announce, h } from './dom.js';
import { checkboxGroup, checkedValues, chips, inPolicyOrder, routesText, textField } from './components.js';
import { confirmDialog } from './confirm-dialog.js';
import { showCreateForm, showCreated } from './credential-create.js';
import { confirmAndDelete, deleteCell, pageLoader, rowButton, showCredentialList } from './credential-list.js';
import { clearErrors, showApiError, showFieldErrors } from './form-errors.js';
import { dateTimeElement, timeElement, utcOffsetText } from './format.js';
import { showKeyPage } from './key-page.js';
import { showServiceAccountEdit } from './service-account-edit.js';

/** A service account holds at most this many public keys (the API's limit). */
const MAX_KEYS = 2;

/** "Never", the moment it expires, or that it has expired. */
function expiryCell(account) {
  if (!account.expires_at) return h('span', { class: 'muted' }, 'Never');
  const expired = new Date(account.expires_at).getTime() <= Date.now();
  return expired ? h('span', { class: 'expired' }, '(expired) ', dateTimeElement(account.expires_at)) : dateTimeElement(account.expires_at);
}

/** The comment of an ssh-ed25519 line ("ssh-ed25519 <base64> payroll-2026"), if it has one. */
function keyComment(key) {
  return key.public_key?.split(/\s+/).slice(2).join(' ') ?? '';
}

function keysOf(account) {
  return account.public_keys?.length
    ? account.public_keys
    : [{ fingerprint: account.fingerprint, public_key: account.public_key, added_at: account.created_at }];
}

/**
 * The list's partly hidden Access ID (only the 201 response ever carries it in full). The API's
 * hint is "1a2b3c4d-****-****-****-************"; its visible part is enough to tell accounts apart.
 */
function maskedAccessId(account) {
  const visible = account.access_id_hint.replace(/[-*]+$/, '');
  return `${visible}-****…`;
}

function splitIps(text) {
  return text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter(Boolean);
}

export function serviceAccountsTab(panel, vocabulary) {
  const tab = { panel, noun: 'service account', prefix: 'sa', route: '#service-accounts', path: '/admin/v1/service-accounts' };
  const defaultIps = vocabulary.default_allowed_ips.join(', ');
  /** Permissions the policy marks as moving money get a visible mark, to make over-granting stand out. */
  const movingMoney = new Set(vocabulary.permissions.filter((p) => p.moves_money).map((p) => p.name));

  /** `notice`: { kind: 'success' | 'error', text } shown above the list. */
  function showList(notice) {
    return showCredentialList(tab, {
      description:
        'Credentials for the banking API. A program signs each request with its Ed25519 private key and sends the Access ID in the x-access-id header; the gateway checks the signature, the permissions and the allowed IPs.',
      load: pageLoader(tab.path, 'service_accounts'),
      empty: { title: 'No service accounts yet', text: 'Create one for each program that calls the banking API, with only the permissions it needs.' },
      columns: ['Description', 'Access ID', 'Permissions', 'Allowed IPs', 'Created', 'Last used'],
      row: accountRow,
      notice,
    });
  }

  function accountRow(account) {
    const anyAddress = account.allowed_ips.length === 0 || account.allowed_ips.join(',') === vocabulary.default_allowed_ips.join(',');
    return h(
      'tr',
      { 'data-id': account.id },
      h(
        'td',
        {},
        h('div', { class: 'cell-title' }, account.description),
        keysOf(account).map((key) => h('div', { class: 'cell-sub fingerprint', title: `Key fingerprint ${key.fingerprint}` }, key.fingerprint)),
        account.account_id ? h('div', { class: 'cell-sub', title: 'Account ID (x-gateway-account-id)' }, `Account ${account.account_id}`) : null,
      ),
      h('td', {}, h('span', { class: 'masked', title: 'Shown in full only once, when the account was created' }, maskedAccessId(account))),
      h('td', {}, chips(inPolicyOrder(account.permissions, vocabulary.permissions), movingMoney)),
      h(
        'td',
        {},
        anyAddress
          ? h('span', { class: 'ip-any' }, 'Any address')
          : h(
              'ul',
              { class: 'ip-list' },
              account.allowed_ips.map((ip) => h('li', {}, ip)),
            ),
      ),
      // The expiry goes under the creation date: the table has no room for another column.
      h(
        'td',
        {},
        timeElement(account.created_at),
        h('div', { class: 'cell-expiry' }, account.expires_at ? ['Expires ', expiryCell(account)] : h('span', { class: 'muted' }, 'Never expires')),
      ),
      h(
        'td',
        {},
        account.last_used_at
          ? [
              timeElement(account.last_used_at, 'relative'),
              account.last_used_ip ? h('div', { class: 'cell-sub nowrap' }, `from ${account.last_used_ip}`) : null,
            ]
          : h('span', { class: 'muted' }, 'Never'),
      ),
      deleteCell(tab, account.description, () => deleteAccount(account), [
        rowButton(tab, account.description, 'Edit', () =>
          showServiceAccountEdit({ tab, account, permissionsGroup, movingMoney, splitIps, anyAddress: vocabulary.default_allowed_ips, back: showList }),
        ),
        rowButton(tab, account.description, 'Keys', () => void showKeys(account.id)),
      ]),
    );
  }

  function deleteAccount(account) {
    return confirmAndDelete(tab, {
      id: account.id,
      name: account.description,
      identity: [' (Access ID ', h('span', { class: 'masked' }, maskedAccessId(account)), ')'],
      warning: 'Deletion is immediate and permanent: from now on every request with this Access ID is rejected with 401 Unauthorized. It cannot be undone.',
      aftermath: 'Requests with its Access ID are now rejected.',
      showList,
    });
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
        'Least privilege limits what a leaked key can do. Permissions can be changed later (Edit), effective at once.',
      ),
      options: vocabulary.permissions.map((p) => ({
        value: p.name,
        title: p.description,
        badge: p.moves_money ? h('span', { class: 'chip chip-risk' }, 'moves money') : null,
        details: [h('span', { class: 'option-meta' }, p.name), h('span', { class: 'option-routes' }, routesText(p.routes))],
      })),
    });
  }

  function showCreate() {
    showCreateForm(tab, {
      intro: 'The Access ID is generated by the gateway and shown once, after you create the account.',
      fields: [
        textField({
          id: 'sa-description',
          field: 'description',
          label: 'Description',
          hint: 'A name that says which program uses this credential, e.g. “Payroll export (production)”.',
          attributes: { maxlength: '200', required: true },
        }),
        textField({
          id: 'sa-public-key',
          field: 'public_key',
          label: 'Public key',
          multiline: true,
          mono: true,
          hint: [
            'The Ed25519 public key: the line that starts with ',
            h('code', {}, 'ssh-ed25519'),
            ', a PEM block that starts with ',
            h('code', {}, '-----BEGIN PUBLIC KEY-----'),
            ', or a JWK (',
            h('code', {}, '{"kty":"OKP","crv":"Ed25519","x":…}'),
            '). Create a key pair with ',
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
          hint: [
            `One per line or comma-separated: an IPv4 address, an IPv4 CIDR range or an IPv6 address. Leave empty to accept requests from any address (default: `,
            h('code', {}, defaultIps),
            ').',
          ],
          attributes: { rows: '3', placeholder: '203.0.113.10\n198.51.100.0/24\n2001:db8::10' },
        }),
        textField({
          id: 'sa-expires-at',
          field: 'expires_at',
          label: 'Expires',
          optional: true,
          hint: `Leave empty for a credential that never expires. In your time zone (${utcOffsetText()}); from then on every request with this Access ID is rejected.`,
          attributes: { type: 'datetime-local', step: '60' },
        }),
        textField({
          id: 'sa-account-id',
          field: 'account_id',
          label: 'Account ID',
          optional: true,
          hint: 'Passed to the banking API in x-gateway-account-id, to tie this credential to an account.',
          attributes: { maxlength: '200' },
        }),
      ],
      read: readForm,
      problems,
      created: showAccountCreated,
    });
  }

  function readForm(form) {
    const value = (id) => form.querySelector(id).value.trim();
    const body = { description: value('#sa-description'), public_key: value('#sa-public-key'), permissions: checkedValues(form, 'permissions') };
    const ips = splitIps(value('#sa-allowed-ips'));
    if (ips.length > 0) body.allowed_ips = ips;
    if (value('#sa-account-id')) body.account_id = value('#sa-account-id');
    // datetime-local is the browser's local time, without zone: sent as RFC 3339 UTC.
    const expires = value('#sa-expires-at');
    if (expires) {
      const at = new Date(expires);
      body.expires_at = Number.isNaN(at.getTime()) ? expires : at.toISOString().replace(/\.000Z$/, 'Z');
    }
    return body;
  }

  /** Every mistake found without a round trip; the API's own checks still decide. */
  function problems(body) {
    const found = [];
    if (!body.description) found.push({ field: 'description', message: 'Enter a description.' });
    if (/PRIVATE KEY/.test(body.public_key))
      found.push({ field: 'public_key', message: 'This is a private key. Paste the public key (the .pub file) instead, and keep the private key secret.' });
    else if (!body.public_key) found.push({ field: 'public_key', message: 'Paste the public key: an ssh-ed25519 line, a PEM public key or a JWK.' });
    if (body.permissions.length === 0) found.push({ field: 'permissions', message: 'Choose at least one permission.' });
    return found;
  }

  function showAccountCreated(account) {
    showCreated(tab, {
      text: `“${account.description}” can now sign requests to the banking API.`,
      secrets: [{ id: 'created-access-id', label: 'Access ID', value: account.access_id }],
      warning: {
        title: 'Copy the Access ID now: it will not be shown again.',
        text: 'The program sends it in the x-access-id header. If it is lost, delete this service account and create a new one.',
      },
      details: h(
        'dl',
        { class: 'details' },
        h('dt', {}, 'Description'),
        h('dd', {}, account.description),
        h('dt', {}, 'Key fingerprint'),
        h('dd', { class: 'mono' }, account.fingerprint ?? ''),
        h('dt', {}, 'Permissions'),
        h('dd', {}, chips(inPolicyOrder(account.permissions, vocabulary.permissions), movingMoney)),
        h('dt', {}, 'Allowed IPs'),
        h('dd', { class: 'mono' }, account.allowed_ips.join(', ')),
        h('dt', {}, 'Expires'),
        h('dd', {}, expiryCell(account)),
      ),
      done: showList,
    });
  }

  /** The account's keys: each fingerprint, Remove when it holds two, and a form to add one. */
  async function showKeys(id, notice = null) {
    let account;
    try {
      account = await api.get(`${tab.path}/${encodeURIComponent(id)}`);
    } catch (error) {
      await showList({ kind: 'error', text: `The service account could not be loaded: ${error.message}` });
      return;
    }
    renderKeys(account, notice);
  }

  function renderKeys(account, notice) {
    showKeyPage(tab.panel, {
      prefix: 'sa',
      title: `Keys of “${account.description}”`,
      notice,
      details: h(
        'dl',
        { class: 'details' },
        h('dt', {}, 'Access ID'),
        h('dd', {}, h('span', { class: 'masked' }, maskedAccessId(account))),
        h('dt', {}, 'Expires'),
        h('dd', { id: 'sa-keys-expires' }, expiryCell(account)),
      ),
      keys: keysOf(account),
      max: MAX_KEYS,
      describe: (key) => [
        h('div', { class: 'key-fingerprint mono' }, key.fingerprint),
        keyComment(key) ? h('div', { class: 'key-comment' }, keyComment(key)) : null,
        h('div', { class: 'hint' }, 'Added ', dateTimeElement(key.added_at)),
        // Whether the program has moved to the new key: the evidence before removing the old one.
        h('div', { class: 'hint key-last-used' }, key.last_used_at ? ['Last used ', timeElement(key.last_used_at, 'relative')] : 'Not used since it was added'),
      ],
      name: (key) => key.fingerprint,
      onRemove: (key) => removeKey(account, key),
      form: {
        field: 'public_key',
        rows: '3',
        placeholder: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… payroll-export-2',
        hint: [
          'The new Ed25519 public key: an ',
          h('code', {}, 'ssh-ed25519'),
          ' line, a PEM block or a JWK. Both keys then verify signatures: move the program to the new key, then remove the old one. ',
          `An account holds at most ${MAX_KEYS} keys.`,
        ],
        onSubmit: (form) => addKey(account, form),
      },
      backLabel: 'Back to service accounts',
      back: showList,
    });
  }

  async function addKey(account, form) {
    clearErrors(form);
    const publicKey = form.querySelector('#sa-new-key').value.trim();
    if (/PRIVATE KEY/.test(publicKey) || /"d"\s*:/.test(publicKey))
      return void showFieldErrors(form, [
        { field: 'public_key', message: 'This is a private key. Paste the public key instead, and keep the private key secret.' },
      ]);
    if (!publicKey) return void showFieldErrors(form, [{ field: 'public_key', message: 'Paste the new public key.' }]);
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const updated = await api.post(`${tab.path}/${encodeURIComponent(account.id)}/keys`, { public_key: publicKey });
      const added = keysOf(updated).find((k) => !keysOf(account).some((old) => old.fingerprint === k.fingerprint));
      const text = `Key ${added?.fingerprint ?? ''} added. Both keys now verify signatures: move the program to the new key, then remove the old one.`;
      announce(text);
      renderKeys(updated, { kind: 'success', text });
    } catch (error) {
      button.disabled = false;
      // 409s (the account already holds two keys, or this one) concern the pasted key: shown at it.
      if (error.code === 'service_account_key_limit' || error.code === 'service_account_key_exists')
        showFieldErrors(form, [{ field: 'public_key', message: error.message }]);
      else showApiError(form, error);
    }
  }

  async function removeKey(account, key) {
    // The other key's last use says whether the program has moved to it yet.
    const other = keysOf(account).find((k) => k.fingerprint !== key.fingerprint);
    const notMoved = other && (!other.last_used_at || (key.last_used_at && other.last_used_at < key.last_used_at));
    const confirmed = await confirmDialog({
      title: 'Remove key?',
      body: [
        h('p', {}, 'The key ', h('strong', { class: 'mono key-fingerprint' }, key.fingerprint), ` will be removed from “${account.description}”.`),
        notMoved
          ? h(
              'p',
              { class: 'dialog-warning key-not-moved' },
              other.last_used_at
                ? 'This key was used more recently than the other one: the program may still sign with it.'
                : 'The other key has not been used yet: the program still signs with this one, or has not run since.',
            )
          : null,
        h('p', { class: 'dialog-warning' }, 'From now on, requests signed with this key are rejected. Move the program to the other key first.'),
      ],
      confirmLabel: 'Remove key',
    });
    if (!confirmed) return;
    try {
      const updated = await api.delete(`${tab.path}/${encodeURIComponent(account.id)}/keys/${encodeURIComponent(key.fingerprint)}`);
      const text = `Key ${key.fingerprint} removed: requests signed with it are now rejected.`;
      announce(text);
      renderKeys(updated, { kind: 'success', text });
    } catch (error) {
      const text =
        error.code === 'service_account_last_key'
          ? `The key was not removed: it is the account’s only key. Add its replacement first, or delete the account. (${error.message})`
          : `The key could not be removed: ${error.message}`;
      announce(text);
      await showKeys(account.id, { kind: 'error', text });
    }
  }

  return {
    show(view) {
      if (view === 'new') showCreate();
      else void showList();
    },
  };
}
