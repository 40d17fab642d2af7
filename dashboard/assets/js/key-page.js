// The Keys page both credential kinds share (key rotation): a notice, the credential's details, its
// keys (each with Remove while it holds the most it may), a form to add one, and the way back.
import { formSummary, textField } from './components.js';
import { formCard } from './credential-create.js';
import { h, replaceChildren } from './dom.js';
import { clearErrorsOnEdit } from './form-errors.js';

/** The form that adds a key: one text field (`field` is the API's name for it, so a 400 finds it). */
function addKeyForm({ prefix, field, hint, placeholder, rows, onSubmit }) {
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': `${prefix}-add-key-title`, class: 'add-key-form' },
    h('h3', { id: `${prefix}-add-key-title` }, 'Add key'),
    formSummary(),
    textField({ id: `${prefix}-new-key`, field, label: 'New public key', multiline: true, mono: true, hint, attributes: { rows, placeholder } }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button button-primary' }, 'Add key')),
  );
  clearErrorsOnEdit(form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void onSubmit(form);
  });
  return form;
}

/**
 * Renders the page in `panel`. `keys` are shown by `describe(key)` (the key's lines) and named by
 * `name(key)` (Remove's hidden words); `max` keys at most, and Remove only when all are held.
 * `notice`: { kind: 'success' | 'error', text } or null. `form`: addKeyForm's options. Focus
 * moves to the title.
 */
export function showKeyPage(panel, { prefix, title, notice, details, keys, max, describe, name, onRemove, form, backLabel, back }) {
  const status = h('div', { role: 'status', 'aria-live': 'polite' });
  if (notice) replaceChildren(status, h('div', { class: `alert alert-${notice.kind}`, role: notice.kind === 'error' ? 'alert' : null }, notice.text));
  const list = h(
    'ul',
    { class: 'key-list', 'aria-label': 'Public keys' },
    keys.map((key) =>
      h(
        'li',
        { class: 'key-item' },
        h('div', { class: 'key-text' }, describe(key)),
        keys.length >= max
          ? h(
              'button',
              { type: 'button', class: 'button button-small button-danger-outline', on: { click: () => void onRemove(key) } },
              'Remove',
              h('span', { class: 'visually-hidden' }, ` key ${name(key)}`),
            )
          : null,
      ),
    ),
  );
  replaceChildren(
    panel,
    formCard(
      h('h2', { id: `${prefix}-keys-title`, tabindex: '-1' }, title),
      status,
      details,
      h('h3', {}, `Public keys (${keys.length} of ${max})`),
      list,
      addKeyForm({ prefix, ...form }),
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button', on: { click: () => void back() } }, backLabel)),
    ),
  );
  document.getElementById(`${prefix}-keys-title`).focus();
}
