// Settings -> API Credentials -> OAuth clients: list with scopes, create (with a secret, shown once,
// or with a public key: private_key_jwt; optionally DPoP-bound), roll the secret (new one shown once,
// the old one kept for a grace period) or rotate the keys (oauth-client-keys.js), delete.
import { api } from './api.js';
import { h, replaceChildren } from './dom.js';
import { checkboxField, checkboxGroup, checkedValues, chips, formSummary, inPolicyOrder, radioGroup, routesText, textField } from './components.js';
import { formCard, showCreateForm, showCreated } from './credential-create.js';
import { confirmAndDelete, deleteCell, pageLoader, rowButton, showCredentialList } from './credential-list.js';
import { clearErrors, clearErrorsOnEdit, showApiError, showFieldErrors } from './form-errors.js';
import { dateTimeElement, relativeTime, timeElement } from './format.js';
import { parsePublicJwks, showClientKeys } from './oauth-client-keys.js';

const AUTH_METHODS = [
  { value: 'client_secret_basic', title: 'Client secret', detail: 'The gateway makes a secret, shown once; the client sends it with each token request.' },
  {
    value: 'private_key_jwt',
    title: 'Private key (private_key_jwt)',
    detail: 'The client signs each token request with its private key; the gateway holds only the public key. FAPI 2.0 asks for this.',
  },
];

/** How long the replaced secret keeps working (the API allows 0 to 7 days); a planned roll keeps it an hour. */
const GRACE_CHOICES = [
  { value: 0, title: 'None', detail: 'The old secret is refused at once: for a leaked secret.' },
  { value: 3_600, title: '1 hour', detail: 'Time to deploy the new secret before the old one stops working.' },
  { value: 86_400, title: '24 hours', detail: 'For deployments that take a day to reach every instance.' },
  { value: 604_800, title: '7 days', detail: 'The longest grace period.' },
];
const PLANNED_ROLL_GRACE = 3_600;

export function oauthClientsTab(panel, vocabulary) {
  const tab = { panel, noun: 'OAuth client', prefix: 'oc', route: '#oauth-clients', path: '/admin/v1/clients' };

  /** `notice`: { kind: 'success' | 'error', text } shown above the list. */
  function showList(notice) {
    return showCredentialList(tab, {
      description:
        'Credentials for the public API. A client exchanges its client ID and secret, or an assertion signed with its key, at /v1/oauth/token for a token that carries the client’s scopes.',
      load: pageLoader(tab.path, 'clients'),
      empty: { title: 'No OAuth clients yet', text: 'Create a client for each application that calls the public API, with only the scopes it needs.' },
      columns: ['Name', 'Client ID', 'Scopes', 'Authentication', 'Account', 'Created', 'Last used'],
      row: clientRow,
      notice,
    });
  }

  function clientRow(client) {
    return h(
      'tr',
      { 'data-id': client.client_id },
      h('td', {}, h('div', { class: 'cell-title' }, client.name), client.resource_server ? h('span', { class: 'chip' }, 'resource server') : null),
      h('td', {}, h('span', { class: 'masked' }, client.client_id)),
      h('td', {}, chips(inPolicyOrder(client.scopes, vocabulary.scopes))),
      h('td', {}, authenticationCell(client)),
      h('td', {}, client.account_id ?? h('span', { class: 'muted' }, '—')),
      h('td', {}, timeElement(client.created_at)),
      h('td', {}, client.last_used_at ? timeElement(client.last_used_at, 'relative') : h('span', { class: 'muted' }, 'Never')),
      deleteCell(tab, client.name, () => deleteClient(client), [
        rowButton(tab, client.name, 'Edit', () => showEdit(client)),
        keyBound(client)
          ? rowButton(tab, client.name, 'Keys', () => void showClientKeys(tab, client.client_id, showList))
          : rowButton(tab, client.name, 'Roll secret', () => showRoll(client)),
      ]),
    );
  }

  function authenticationCell(client) {
    const method = keyBound(client) ? `Private key (${client.jwks.keys.length === 1 ? '1 key' : `${client.jwks.keys.length} keys`})` : 'Secret';
    return [
      h('div', {}, method),
      client.dpop_bound_access_tokens ? h('span', { class: 'chip', title: 'Every token is bound to a DPoP key (RFC 9449)' }, 'DPoP') : null,
    ];
  }

  function deleteClient(client) {
    return confirmAndDelete(tab, {
      id: client.client_id,
      name: client.name,
      warning: 'Deletion is immediate and permanent: tokens already issued to it stop working at once, and it can get no new ones. It cannot be undone.',
      aftermath: 'Its tokens no longer work.',
      showList,
    });
  }

  function scopesGroup() {
    return checkboxGroup({
      id: 'oc-scopes',
      field: 'scopes',
      legend: 'Scopes',
      hint: h(
        'p',
        { id: 'oc-scopes-hint', class: 'hint' },
        'Grant only the scopes the application needs; a token request can narrow them further, never widen them.',
      ),
      // As permissions are shown: what the policy says it allows, then its name and the routes it opens.
      options: vocabulary.scopes.map((s) => ({
        value: s.name,
        title: s.description,
        details: [h('span', { class: 'option-meta' }, s.name), h('span', { class: 'option-routes' }, routesText(s.routes))],
      })),
    });
  }

  /** Name and scopes change (PATCH); a scope taken away stops working at once, also in tokens already issued. */
  function showEdit(client) {
    const form = h(
      'form',
      { novalidate: true, 'aria-labelledby': 'oc-edit-title' },
      h('h2', { id: 'oc-edit-title', tabindex: '-1' }, `Edit “${client.name}”`),
      h(
        'p',
        { class: 'intro' },
        'A scope you remove stops working at once on every gateway, also in tokens already issued; a scope you add is in the client’s next token.',
      ),
      formSummary(),
      textField({ id: 'oc-name', field: 'name', label: 'Name', attributes: { maxlength: '200', required: true } }),
      scopesGroup(),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'button button-primary' }, 'Save changes'),
        h('button', { type: 'button', class: 'button', on: { click: () => void showList() } }, 'Cancel'),
      ),
    );
    form.querySelector('#oc-name').value = client.name;
    for (const input of form.querySelectorAll('input[name="scopes"]')) input.checked = client.scopes.includes(input.value);
    clearErrorsOnEdit(form);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      clearErrors(form);
      const body = { name: form.querySelector('#oc-name').value.trim(), scopes: checkedValues(form, 'scopes') };
      const found = [
        ...(body.name ? [] : [{ field: 'name', message: 'Enter a name.' }]),
        ...(body.scopes.length > 0 ? [] : [{ field: 'scopes', message: 'Choose at least one scope.' }]),
      ];
      if (found.length > 0) return void showFieldErrors(form, found);
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        const saved = await api.patch(`${tab.path}/${encodeURIComponent(client.client_id)}`, body);
        await showList({ kind: 'success', text: `“${saved.name}” saved: every gateway applies it from the next request.` });
      } catch (error) {
        button.disabled = false;
        showApiError(form, error);
      }
    });
    replaceChildren(panel, formCard(form));
    document.getElementById('oc-edit-title').focus();
  }

  function showCreate() {
    showCreateForm(tab, {
      intro: 'The client ID is generated by the gateway; so is the secret of a client that uses one, shown once after you create the client.',
      fields: [
        textField({
          id: 'oc-name',
          field: 'name',
          label: 'Name',
          hint: 'Which application uses this client, e.g. “Storefront backend”.',
          attributes: { maxlength: '200', required: true },
        }),
        scopesGroup(),
        radioGroup({
          id: 'oc-method',
          field: 'token_endpoint_auth_method',
          legend: 'Authentication',
          hint: 'How the client proves who it is at the token endpoint.',
          choices: AUTH_METHODS,
          checked: 'client_secret_basic',
        }),
        textField({
          id: 'oc-jwks',
          field: 'jwks',
          label: 'Public key (JWK)',
          multiline: true,
          mono: true,
          hint: [
            'The public JWK (or a JWK Set of one or two) the client signs with: Ed25519, P-256 or RSA of 2048 bits or more. Its ',
            h('code', {}, 'kid'),
            ' is kept; without one the key’s thumbprint becomes its kid.',
          ],
          attributes: { rows: '4', placeholder: '{"kty":"OKP","crv":"Ed25519","x":"…","kid":"k1"}' },
        }),
        checkboxField({
          id: 'oc-dpop',
          field: 'dpop_bound_access_tokens',
          label: 'DPoP-bound tokens',
          hint: 'Every token request must carry a DPoP proof, and every token is bound to that key: a copied token is useless without it.',
        }),
        textField({
          id: 'oc-account-id',
          field: 'account_id',
          label: 'Account ID',
          optional: true,
          hint: 'Passed to the public API in x-gateway-account-id.',
          attributes: { maxlength: '200' },
        }),
        checkboxField({
          id: 'oc-resource-server',
          field: 'resource_server',
          label: 'Resource server (may introspect tokens)',
          hint: 'Only for an API that checks other clients’ tokens at /v1/oauth/introspect; introspection shows any token’s client and scopes.',
        }),
      ],
      read: readForm,
      problems: (body) => [
        ...(body.name ? [] : [{ field: 'name', message: 'Enter a name.' }]),
        ...(body.scopes.length > 0 ? [] : [{ field: 'scopes', message: 'Choose at least one scope.' }]),
        ...(body.jwks?.problem ? [{ field: 'jwks', message: body.jwks.problem }] : []),
      ],
      created: showClientCreated,
    });
    // The key field belongs to the key method: shown only while it is chosen.
    const form = panel.querySelector('form');
    const keyField = form.querySelector('[data-field="jwks"]');
    const showKeyField = () => (keyField.hidden = form.querySelector('input[name="token_endpoint_auth_method"]:checked').value !== 'private_key_jwt');
    form.querySelectorAll('input[name="token_endpoint_auth_method"]').forEach((input) => input.addEventListener('change', showKeyField));
    showKeyField();
  }

  function readForm(form) {
    const method = form.querySelector('input[name="token_endpoint_auth_method"]:checked').value;
    const body = {
      name: form.querySelector('#oc-name').value.trim(),
      scopes: checkedValues(form, 'scopes'),
      token_endpoint_auth_method: method,
      dpop_bound_access_tokens: form.querySelector('#oc-dpop').checked,
      resource_server: form.querySelector('#oc-resource-server').checked,
    };
    if (method === 'private_key_jwt') body.jwks = parsePublicJwks(form.querySelector('#oc-jwks').value);
    const accountId = form.querySelector('#oc-account-id').value.trim();
    if (accountId) body.account_id = accountId;
    return body;
  }

  function showClientCreated(client) {
    if (keyBound(client)) {
      showCreated(tab, {
        text: `“${client.name}” can now get tokens with the scopes ${client.scopes.join(', ')}, signing its token requests with the key ${client.jwks.keys.map((k) => k.kid).join(' or ')}${client.dpop_bound_access_tokens ? ', each with a DPoP proof' : ''}.`,
        secrets: [{ id: 'created-client-id', label: 'Client ID', value: client.client_id }],
        warning: {
          title: 'The client ID is its iss and sub.',
          text: 'The client puts it in each assertion it signs; the gateway holds no secret for this client, only the public key.',
        },
        done: showList,
      });
      return;
    }
    showCreated(tab, {
      text: `“${client.name}” can now get tokens with the scopes ${client.scopes.join(', ')}${client.resource_server ? ', and introspect tokens' : ''}.`,
      secrets: [
        { id: 'created-client-id', label: 'Client ID', value: client.client_id },
        { id: 'created-client-secret', label: 'Client secret', value: client.client_secret },
      ],
      warning: {
        title: 'Copy the client secret now: it will not be shown again.',
        text: 'The gateway keeps only a hash of it. If it is lost, delete this client and create a new one.',
      },
      done: showList,
    });
  }

  /** Roll the secret: choose the grace period; the new secret is shown once, as at creation. */
  function showRoll(client) {
    const form = h(
      'form',
      { novalidate: true, 'aria-labelledby': 'oc-roll-title' },
      h('h2', { id: 'oc-roll-title' }, `Roll the secret of “${client.name}”`),
      h('p', { class: 'intro' }, 'The gateway makes a new secret, shown once. The new secret works at once; tokens already issued stay valid.'),
      formSummary(),
      radioGroup({
        id: 'oc-grace',
        field: 'grace_seconds',
        legend: 'Grace period',
        hint: 'How long the current secret keeps working after the roll.',
        choices: GRACE_CHOICES,
        checked: PLANNED_ROLL_GRACE,
      }),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'button button-primary' }, 'Roll secret'),
        h('button', { type: 'button', class: 'button', on: { click: () => void showList() } }, 'Cancel'),
      ),
    );
    clearErrorsOnEdit(form);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      clearErrors(form);
      const grace = Number(form.querySelector('input[name="grace_seconds"]:checked')?.value ?? '0');
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        showRolled(await api.post(`${tab.path}/${encodeURIComponent(client.client_id)}/secret`, { grace_seconds: grace }));
      } catch (error) {
        button.disabled = false;
        showApiError(form, error);
      }
    });
    replaceChildren(panel, formCard(form));
    form.querySelector('input[name="grace_seconds"]:checked').focus();
  }

  function showRolled(client) {
    const until = client.previous_secret_expires_at;
    showCreated(tab, {
      title: 'Client secret rolled',
      text: until
        ? `“${client.name}” has a new secret. The previous secret keeps working until ${new Date(until)
            .toISOString()
            .replace('T', ' ')
            .replace(/\.\d+Z$/, ' UTC')} (${relativeTime(new Date(until))}).`
        : `“${client.name}” has a new secret. The previous secret no longer works.`,
      secrets: [
        { id: 'created-client-id', label: 'Client ID', value: client.client_id },
        { id: 'created-client-secret', label: 'Client secret', value: client.client_secret },
      ],
      warning: {
        title: 'Copy the client secret now: it will not be shown again.',
        text: 'The gateway keeps only a hash of it. If it is lost, roll the secret again.',
      },
      details: h(
        'dl',
        { class: 'details' },
        h('dt', {}, 'Previous secret'),
        h('dd', { id: 'previous-secret-expiry' }, until ? ['Works until ', dateTimeElement(until)] : 'Refused from now on'),
      ),
      done: showList,
    });
  }

  function keyBound(client) {
    return client.token_endpoint_auth_method === 'private_key_jwt';
  }

  return {
    show(view) {
      if (view === 'new') showCreate();
      else void showList();
    },
  };
}
