// Pieces shared by the two tabs: headers, empty states, labelled fields, secret reveals.
import { h } from './dom.js';
import { copyButton } from './copy-button.js';

export function panelHeader({ title, description, action }) {
  return h('div', { class: 'panel-header' }, h('div', {}, h('h2', {}, title), h('p', {}, description)), action);
}

export function emptyState({ title, text, action }) {
  return h('div', { class: 'empty' }, h('div', { class: 'empty-icon', 'aria-hidden': 'true' }, '+'), h('h3', {}, title), h('p', {}, text), action);
}

/** A link styled as a button, for moves between views (they are navigation, not actions). */
export function linkButton(href, text, className = 'button button-primary') {
  return h('a', { href, class: className }, text);
}

/**
 * A labelled input with its hint and its error slot, wired with aria-describedby.
 * `field` is the API's name for it, so a 400's `field` finds it.
 */
export function textField({ id, field, label, optional = false, hint, multiline = false, mono = false, attributes = {} }) {
  const describedBy = [hint ? `${id}-hint` : null, `${id}-error`].filter(Boolean).join(' ');
  const control = h(multiline ? 'textarea' : 'input', {
    id,
    name: field,
    type: multiline ? null : 'text',
    class: mono ? 'mono' : null,
    'aria-describedby': describedBy,
    spellcheck: mono ? 'false' : null,
    autocomplete: 'off',
    ...attributes,
  });
  return h(
    'div',
    { class: 'field', 'data-field': field, 'data-label': label },
    h('label', { for: id }, label, optional ? h('span', { class: 'optional' }, ' (optional)') : null),
    control,
    hint ? h('p', { id: `${id}-hint`, class: 'hint' }, hint) : null,
    h('p', { id: `${id}-error`, class: 'field-error', hidden: true }),
  );
}

/** A group of checkboxes (permissions, scopes) with a legend, a hint and one error slot. */
export function checkboxGroup({ id, field, legend, hint, options }) {
  return h(
    'fieldset',
    { class: 'field', 'data-field': field, 'data-label': legend, 'aria-describedby': `${id}-hint ${id}-error` },
    h('legend', {}, legend),
    hint,
    h(
      'div',
      { class: 'checkbox-list' },
      options.map((option) =>
        h(
          'label',
          { class: 'checkbox-option', for: `${id}-${option.value}` },
          h('input', { type: 'checkbox', id: `${id}-${option.value}`, name: field, value: option.value, 'aria-describedby': `${id}-${option.value}-detail` }),
          h(
            'span',
            {},
            h('span', { class: 'option-title' }, option.title, option.badge ?? null),
            h('span', { id: `${id}-${option.value}-detail` }, option.details),
          ),
        ),
      ),
    ),
    h('p', { id: `${id}-error`, class: 'field-error', hidden: true }),
  );
}

/**
 * One choice among `choices` ({ value, title, detail }) as radio buttons with a legend, a hint and
 * an error slot; `checked` is the value chosen at first.
 */
export function radioGroup({ id, field, legend, hint, choices, checked }) {
  return h(
    'fieldset',
    { class: 'field', 'data-field': field, 'data-label': legend, 'aria-describedby': `${id}-hint ${id}-error` },
    h('legend', {}, legend),
    h('p', { id: `${id}-hint`, class: 'hint' }, hint),
    h(
      'div',
      { class: 'checkbox-list' },
      choices.map((choice) =>
        h(
          'label',
          { class: 'checkbox-option', for: `${id}-${choice.value}` },
          h('input', {
            type: 'radio',
            id: `${id}-${choice.value}`,
            name: field,
            value: String(choice.value),
            checked: String(choice.value) === String(checked),
            'aria-describedby': `${id}-${choice.value}-detail`,
          }),
          h(
            'span',
            {},
            h('span', { class: 'option-title' }, choice.title),
            h('span', { id: `${id}-${choice.value}-detail`, class: 'option-detail' }, choice.detail),
          ),
        ),
      ),
    ),
    h('p', { id: `${id}-error`, class: 'field-error', hidden: true }),
  );
}

/** One yes/no checkbox (a boolean API field) with its hint and error slot, styled as a group option. */
export function checkboxField({ id, field, label, hint }) {
  return h(
    'div',
    { class: 'field', 'data-field': field, 'data-label': label },
    h(
      'label',
      { class: 'checkbox-option', for: id },
      h('input', { type: 'checkbox', id, name: field, 'aria-describedby': `${id}-hint ${id}-error` }),
      h('span', {}, h('span', { class: 'option-title' }, label), h('span', { id: `${id}-hint`, class: 'option-detail' }, hint)),
    ),
    h('p', { id: `${id}-error`, class: 'field-error', hidden: true }),
  );
}

export function checkedValues(form, field) {
  return [...form.querySelectorAll(`input[name="${field}"]:checked`)].map((input) => input.value);
}

/** A value shown once (Access ID, client secret): labelled, selectable, with a copy button. */
export function secretReveal({ id, label, value }) {
  return [
    h('h3', { id: `${id}-label` }, label),
    h('div', { class: 'secret-row' }, h('output', { id, class: 'secret-value', 'aria-labelledby': `${id}-label` }, value), copyButton(value, label)),
  ];
}

export function formSummary() {
  return h('div', { class: 'alert alert-error form-summary', role: 'alert', tabindex: '-1', hidden: true });
}

/** The names in the order the policy declares them (the order every form shows them in); unknown ones last. */
export function inPolicyOrder(names, declared) {
  const rank = (name) => {
    const at = declared.findIndex((entry) => entry.name === name);
    return at === -1 ? declared.length : at;
  };
  return [...names].sort((a, b) => rank(a) - rank(b));
}

export function chips(values, riskyValues = new Set()) {
  return h(
    'ul',
    { class: 'chips' },
    values.map((value) => h('li', { class: riskyValues.has(value) ? 'chip chip-risk' : 'chip' }, value)),
  );
}

export function routesText(routes) {
  return routes.length === 0 ? 'No route in the current policy' : routes.map((r) => `${r.method} ${r.path}`).join(', ');
}
