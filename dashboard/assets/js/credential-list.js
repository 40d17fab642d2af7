// The list view and the delete flow both credential tabs share. `tab` names the credential:
// { panel, noun, prefix, route, path }, with `noun` as in running text ('service account',
// 'OAuth client'), so the sentences around it are written once.
import { api } from './api.js';
import { emptyState, linkButton, panelHeader } from './components.js';
import { confirmDialog } from './confirm-dialog.js';
import { announce, h, replaceChildren } from './dom.js';
import { capitalized } from './format.js';

/** A `load` for showCredentialList: one page of the admin list at `path` (its items under `key`). */
export function pageLoader(path, key, limit = 100) {
  return async (cursor) => {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set('cursor', cursor);
    const page = await api.get(`${path}?${query}`);
    return { items: page[key], nextCursor: page.next_cursor ?? null };
  };
}

/**
 * The header with its `description`, a polite status region for `notice` ({ kind: 'success' |
 * 'error', text }), and a card that is aria-busy until the first page of `load(cursor)` ({ items,
 * nextCursor }) resolves, then holds an error alert, the `empty` state ({ title, text }) or a table
 * of `columns` with one `row(item)` each, and a "Show more" button while pages remain. Header and
 * empty state both link to the create form, `${route}/new`.
 */
export async function showCredentialList({ panel, noun, route }, { description, load, empty, columns, row, notice }) {
  const plural = `${noun}s`;
  const createLink = () => linkButton(`${route}/new`, `Create ${noun}`);
  const status = h('div', { role: 'status', 'aria-live': 'polite' });
  const body = h('div', { class: 'card', 'aria-busy': 'true' }, h('p', { class: 'card-body muted' }, `Loading ${plural}…`));
  replaceChildren(panel, panelHeader({ title: capitalized(plural), description, action: createLink() }), status, body);
  if (notice) replaceChildren(status, h('div', { class: `alert alert-${notice.kind}` }, notice.text));
  const loadFailed = (error) => h('div', { class: 'alert alert-error', role: 'alert' }, h('strong', {}, `The ${plural} could not be loaded.`), error.message);
  let page;
  try {
    page = await load(null);
  } catch (error) {
    replaceChildren(body, h('div', { class: 'card-body' }, loadFailed(error)));
    body.removeAttribute('aria-busy');
    return;
  }
  body.removeAttribute('aria-busy');
  if (page.items.length === 0) {
    // The header's Create button is the page's one primary action; the empty state's is plain.
    replaceChildren(body, emptyState({ ...empty, action: linkButton(`${route}/new`, `Create ${noun}`, 'button') }));
    return;
  }
  let shown = page.items.length;
  let cursor = page.nextCursor;
  const caption = h('caption', { class: 'visually-hidden' }, '');
  const describe = () => replaceChildren(caption, `${capitalized(plural)} (${shown} shown${cursor ? ', more available' : ''})`);
  describe();
  const labelledRow = (item) => labelCells(row(item), columns);
  const rows = h('tbody', { role: 'rowgroup' }, page.items.map(labelledRow));
  const more = h('button', { type: 'button', class: 'button button-secondary', on: { click: showMore } }, `Show more ${plural}`);
  async function showMore() {
    more.disabled = true;
    try {
      const next = await load(cursor);
      rows.append(...next.items.map(labelledRow));
      shown += next.items.length;
      cursor = next.nextCursor;
      describe();
      announce(`${next.items.length} more ${plural} shown.`);
      if (cursor) more.disabled = false;
      else more.remove();
    } catch (error) {
      more.disabled = false;
      replaceChildren(status, loadFailed(error));
    }
  }
  replaceChildren(body, h('div', { class: 'table-wrap' }, credentialTable(caption, columns, rows)), cursor ? h('div', { class: 'card-footer' }, more) : null);
}

/**
 * The caption is for screen readers (it counts the rows); the last column holds the actions. On a
 * narrow screen the CSS shows each row as a card, which drops the table's built-in semantics in
 * browsers: the explicit roles keep it a table for screen readers.
 */
function credentialTable(caption, columns, rows) {
  return h(
    'table',
    { class: 'credential-table', role: 'table' },
    caption,
    h(
      'thead',
      { role: 'rowgroup' },
      h(
        'tr',
        { role: 'row' },
        columns.map((t) => h('th', { scope: 'col', role: 'columnheader' }, t)),
        h('th', { scope: 'col', role: 'columnheader' }, h('span', { class: 'visually-hidden' }, 'Actions')),
      ),
    ),
    rows,
  );
}

/** Each cell carries its column's name, which the card layout shows beside the value. */
function labelCells(tr, columns) {
  tr.setAttribute('role', 'row');
  [...tr.children].forEach((cell, i) => {
    cell.setAttribute('role', 'cell');
    if (columns[i]) cell.dataset.label = columns[i];
  });
  return tr;
}

/**
 * The row's Delete button, after any `extra` buttons (rowButton); its hidden text names the row, so
 * the buttons differ for screen readers.
 */
export function deleteCell({ noun }, name, onClick, extra = []) {
  return h(
    'td',
    { class: 'actions-cell' },
    h(
      'div',
      { class: 'row-actions' },
      extra,
      h(
        'button',
        { type: 'button', class: 'button button-small button-danger-outline', on: { click: onClick } },
        'Delete',
        h('span', { class: 'visually-hidden' }, ` ${noun} ${name}`),
      ),
    ),
  );
}

/** A small button for a row's actions cell: `text`, then hidden words naming the row. */
export function rowButton({ noun }, name, text, onClick) {
  return h(
    'button',
    { type: 'button', class: 'button button-small', on: { click: onClick } },
    text,
    h('span', { class: 'visually-hidden' }, ` of ${noun} ${name}`),
  );
}

/**
 * Asks first, then deletes `id` and shows the list again with what happened (`showList(notice)`).
 * `identity`: what follows the name in the question; `warning`: what deleting does; `aftermath`:
 * the sentence after "… was deleted.".
 */
export async function confirmAndDelete({ noun, path }, { id, name, identity = null, warning, aftermath, showList }) {
  const confirmed = await confirmDialog({
    title: `Delete ${noun}?`,
    body: [h('p', {}, `The ${noun} “`, h('strong', {}, name), '”', identity, ' will be deleted.'), h('p', { class: 'dialog-warning' }, warning)],
    confirmLabel: 'Delete permanently',
  });
  if (!confirmed) return;
  try {
    await api.delete(`${path}/${encodeURIComponent(id)}`);
  } catch (error) {
    // 404: someone else deleted it first, which is what was asked for.
    if (error.status !== 404) {
      announce(`Delete failed: ${error.message}`);
      await showList({ kind: 'error', text: `The ${noun} could not be deleted: ${error.message}` });
      return;
    }
  }
  announce(`${capitalized(noun)} ${name} deleted.`);
  await showList({ kind: 'success', text: `${capitalized(noun)} “${name}” was deleted. ${aftermath}` });
}
