// The create flow both credential tabs share: a form that shows errors at their fields
// (form-errors.js), then the values the API returns only once, with a warning to copy them now.
import { api } from './api.js';
import { formSummary, linkButton, secretReveal } from './components.js';
import { announce, h, replaceChildren } from './dom.js';
import { clearErrors, clearErrorsOnEdit, showApiError, showFieldErrors } from './form-errors.js';
import { capitalized } from './format.js';

export function formCard(...children) {
  return h('div', { class: 'card form-card' }, h('div', { class: 'card-body' }, children));
}

/**
 * The "Create <noun>" form, with focus on its first field. On submit, `read(form)` gives the body;
 * `problems(body)` lists every { field, message } found without a round trip (all are shown at
 * once; the API's own checks still decide); a clean body is posted to the tab's path and the
 * answer goes to `created`. `tab`: { panel, noun, prefix, route, path }, as in credential-list.js.
 */
export function showCreateForm({ panel, noun, prefix, route, path }, { intro, fields, read, problems, created }) {
  const title = `Create ${noun}`;
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': `${prefix}-create-title` },
    h('h2', { id: `${prefix}-create-title` }, title),
    h('p', { class: 'intro' }, intro),
    formSummary(),
    fields,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button button-primary' }, title), linkButton(route, 'Cancel', 'button')),
  );
  clearErrorsOnEdit(form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit(form, { read, problems, path, created });
  });
  replaceChildren(panel, formCard(form));
  form.querySelector('input, textarea').focus();
}

async function submit(form, { read, problems, path, created }) {
  clearErrors(form);
  const body = read(form);
  const found = problems(body);
  if (found.length > 0) return void showFieldErrors(form, found);
  // Disabled while the request runs, so a double click does not create two credentials.
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    created(await api.post(path, body));
  } catch (error) {
    showApiError(form, error);
  } finally {
    button.disabled = false;
  }
}

/**
 * After a create (or a secret roll): `secrets` (secretReveal's options) shown this once, a `warning`
 * ({ title, text }) to copy them now, optional `details`, and Done, which calls `done`. Focus moves
 * to the title (`title`, "<Noun> created" unless told).
 */
export function showCreated({ panel, noun, prefix, route }, { title = `${capitalized(noun)} created`, text, secrets, warning, details = null, done }) {
  // The URL leaves the form, so a reload shows the list, where the secrets are hidden.
  history.replaceState(null, '', route);
  replaceChildren(
    panel,
    formCard(
      h('div', { class: 'alert alert-success', role: 'status' }, h('strong', { tabindex: '-1', id: `${prefix}-created-title` }, title), text),
      secrets.map(secretReveal),
      h('div', { class: 'alert alert-warning', role: 'note' }, h('strong', {}, warning.title), warning.text),
      details,
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button button-primary', on: { click: () => void done() } }, 'Done')),
    ),
  );
  announce(`${title}. ${warning.title}`);
  document.getElementById(`${prefix}-created-title`).focus();
}
