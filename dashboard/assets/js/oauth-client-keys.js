// A private_key_jwt client's public keys: each kid and key type, Remove when it holds two, and a
// form to add one (key rotation: add the new key, move the client to it, remove the old one). The
// pasted text is read here only to catch what would fail anyway (not JSON, a private key); the API
// decides the rest.
import { api } from './api.js';
import { confirmDialog } from './confirm-dialog.js';
import { announce, h } from './dom.js';
import { clearErrors, showApiError, showFieldErrors } from './form-errors.js';
import { showKeyPage } from './key-page.js';

/** A client holds at most this many public keys (the API's limit). */
const MAX_KEYS = 2;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/** The pasted JSON as a JWK, or { problem } saying what is wrong with it. */
function parseJwk(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'Paste the public key as JSON (a JWK), e.g. {"kty":"OKP","crv":"Ed25519","x":"…"}.' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'Paste one JSON object: a JWK, or a JWK Set {"keys": […]}.' };
  const keys = Array.isArray(value.keys) ? value.keys : [value];
  if (keys.some((key) => key && typeof key === 'object' && PRIVATE_MEMBERS.some((name) => name in key)))
    return { problem: 'This is a private key. Paste the public key instead, and keep the private key on the client.' };
  return { value };
}

/** The `jwks` of a create request: a JWK Set from a pasted JWK or JWK Set, or { problem }. */
export function parsePublicJwks(text) {
  if (!text.trim()) return { problem: 'Paste the public key the client signs with.' };
  const parsed = parseJwk(text);
  if (parsed.problem) return parsed;
  return Array.isArray(parsed.value.keys) ? parsed.value : { keys: [parsed.value] };
}

function keyType(jwk) {
  return jwk.kty === 'OKP' ? 'Ed25519' : jwk.kty === 'EC' ? `EC ${jwk.crv}` : jwk.kty === 'RSA' ? 'RSA' : jwk.kty;
}

/** `tab` as in credential-list.js; `back` shows the list again (with an optional notice). */
export async function showClientKeys(tab, clientId, back, notice = null) {
  let client;
  try {
    client = await api.get(`${tab.path}/${encodeURIComponent(clientId)}`);
  } catch (error) {
    await back({ kind: 'error', text: `The OAuth client could not be loaded: ${error.message}` });
    return;
  }
  renderKeys(tab, client, back, notice);
}

function renderKeys(tab, client, back, notice) {
  showKeyPage(tab.panel, {
    prefix: 'oc',
    title: `Keys of “${client.name}”`,
    notice,
    details: h('dl', { class: 'details' }, h('dt', {}, 'Client ID'), h('dd', { class: 'mono' }, client.client_id)),
    keys: client.jwks.keys,
    max: MAX_KEYS,
    describe: (key) => [h('div', { class: 'key-fingerprint mono' }, key.kid), h('div', { class: 'hint' }, keyType(key))],
    name: (key) => key.kid,
    onRemove: (key) => removeKey(tab, client, key, back),
    form: {
      field: 'jwk',
      rows: '4',
      placeholder: '{"kty":"OKP","crv":"Ed25519","x":"…","kid":"k2"}',
      hint: `The new public JWK. Both keys then verify the client’s assertions: move the client to the new key, then remove the old one. A client holds at most ${MAX_KEYS} keys.`,
      onSubmit: (form) => addKey(tab, client, form, back),
    },
    backLabel: 'Back to OAuth clients',
    back,
  });
}

async function addKey(tab, client, form, back) {
  clearErrors(form);
  const text = form.querySelector('#oc-new-key').value.trim();
  if (!text) return void showFieldErrors(form, [{ field: 'jwk', message: 'Paste the new public key.' }]);
  const parsed = parseJwk(text);
  if (parsed.problem) return void showFieldErrors(form, [{ field: 'jwk', message: parsed.problem }]);
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const updated = await api.post(`${tab.path}/${encodeURIComponent(client.client_id)}/keys`, { jwk: parsed.value });
    const added = updated.jwks.keys.find((k) => !client.jwks.keys.some((old) => old.kid === k.kid));
    const notice = `Key ${added?.kid ?? ''} added. Both keys now verify the client’s assertions: move the client to the new key, then remove the old one.`;
    announce(notice);
    renderKeys(tab, updated, back, { kind: 'success', text: notice });
  } catch (error) {
    button.disabled = false;
    if (error.code === 'client_key_limit' || error.code === 'client_key_exists') showFieldErrors(form, [{ field: 'jwk', message: error.message }]);
    else showApiError(form, error);
  }
}

async function removeKey(tab, client, key, back) {
  const confirmed = await confirmDialog({
    title: 'Remove key?',
    body: [
      h('p', {}, 'The key ', h('strong', { class: 'mono key-fingerprint' }, key.kid), ` will be removed from “${client.name}”.`),
      h('p', { class: 'dialog-warning' }, 'From now on, assertions signed with this key are refused. Move the client to the other key first.'),
    ],
    confirmLabel: 'Remove key',
  });
  if (!confirmed) return;
  try {
    const updated = await api.delete(`${tab.path}/${encodeURIComponent(client.client_id)}/keys/${encodeURIComponent(key.kid)}`);
    const text = `Key ${key.kid} removed: assertions signed with it are now refused.`;
    announce(text);
    renderKeys(tab, updated, back, { kind: 'success', text });
  } catch (error) {
    const text = `The key could not be removed: ${error.message}`;
    announce(text);
    await showClientKeys(tab, client.client_id, back, { kind: 'error', text });
  }
}
