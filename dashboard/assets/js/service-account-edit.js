// Edit a service account: its description, permissions, allowed IPs and expiry change; its Access ID
// and keys stay (PATCH /admin/v1/service-accounts/{id}). Granting a permission that moves money is
// asked again. The change holds on every gateway instance from the next request.
import { api } from './api.js';
import { formSummary, textField } from './components.js';
import { confirmDialog } from './confirm-dialog.js';
import { formCard } from './credential-create.js';
import { announce, h, replaceChildren } from './dom.js';
import { clearErrors, clearErrorsOnEdit, showApiError, showFieldErrors } from './form-errors.js';
import { utcOffsetText } from './format.js';

/** An ISO instant as a datetime-local value (the browser's time zone, to the minute). */
function localInputValue(iso) {
  if (!iso) return '';
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * `options`: tab (as in credential-list.js), the account, `permissionsGroup()` (the create form's
 * checkboxes), `movingMoney` (names of permissions that move money), `splitIps`, and `back(notice)`.
 */
export function showServiceAccountEdit({ tab, account, permissionsGroup, movingMoney, splitIps, anyAddress, back }) {
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'sa-edit-title' },
    h('h2', { id: 'sa-edit-title', tabindex: '-1' }, `Edit “${account.description}”`),
    h('p', { class: 'intro' }, 'The Access ID and the keys stay. Every gateway checks the next request against what you save here.'),
    formSummary(),
    textField({ id: 'sa-description', field: 'description', label: 'Description', attributes: { maxlength: '200', required: true } }),
    permissionsGroup(),
    textField({
      id: 'sa-allowed-ips',
      field: 'allowed_ips',
      label: 'Allowed IPs',
      optional: true,
      multiline: true,
      mono: true,
      hint: 'One per line or comma-separated. Leave empty to accept requests from any address.',
      attributes: { rows: '3' },
    }),
    textField({
      id: 'sa-expires-at',
      field: 'expires_at',
      label: 'Expires',
      optional: true,
      hint: `Leave empty for a credential that never expires. In your time zone (${utcOffsetText()}).`,
      attributes: { type: 'datetime-local', step: '60' },
    }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'button button-primary' }, 'Save changes'),
      h('button', { type: 'button', class: 'button', on: { click: () => void back() } }, 'Cancel'),
    ),
  );
  form.querySelector('#sa-description').value = account.description;
  for (const input of form.querySelectorAll('input[name="permissions"]')) input.checked = account.permissions.includes(input.value);
  const anyIps = account.allowed_ips.length === anyAddress.length && anyAddress.every((ip) => account.allowed_ips.includes(ip));
  form.querySelector('#sa-allowed-ips').value = anyIps ? '' : account.allowed_ips.join('\n');
  form.querySelector('#sa-expires-at').value = localInputValue(account.expires_at);
  clearErrorsOnEdit(form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void save(form);
  });
  replaceChildren(tab.panel, formCard(form));
  document.getElementById('sa-edit-title').focus();

  async function save(form) {
    clearErrors(form);
    const description = form.querySelector('#sa-description').value.trim();
    const permissions = [...form.querySelectorAll('input[name="permissions"]:checked')].map((input) => input.value);
    const found = [
      ...(description ? [] : [{ field: 'description', message: 'Enter a description.' }]),
      ...(permissions.length > 0 ? [] : [{ field: 'permissions', message: 'Choose at least one permission.' }]),
    ];
    if (found.length > 0) return void showFieldErrors(form, found);
    const ips = splitIps(form.querySelector('#sa-allowed-ips').value);
    const expires = form.querySelector('#sa-expires-at').value;
    const body = {
      description,
      permissions,
      allowed_ips: ips.length > 0 ? ips : null,
      expires_at: expires ? new Date(expires).toISOString().replace(/\.000Z$/, 'Z') : null,
    };
    const granted = permissions.filter((name) => movingMoney.has(name) && !account.permissions.includes(name));
    if (granted.length > 0) {
      const confirmed = await confirmDialog({
        title: 'Grant a permission that moves money?',
        body: [
          h('p', {}, `“${account.description}” will be able to `, h('strong', {}, granted.join(', ')), ' from its next request, with the key it holds now.'),
          h('p', { class: 'dialog-warning' }, 'Anyone holding its private key gets this too.'),
        ],
        confirmLabel: 'Grant and save',
      });
      if (!confirmed) return;
    }
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const saved = await api.patch(`${tab.path}/${encodeURIComponent(account.id)}`, body);
      const text = `“${saved.description}” saved: every gateway applies it from the next request.`;
      announce(text);
      await back({ kind: 'success', text });
    } catch (error) {
      button.disabled = false;
      showApiError(form, error);
    }
  }
}
