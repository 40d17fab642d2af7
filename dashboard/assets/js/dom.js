// Builds elements from data without ever parsing it as markup: strings become text nodes, so a
// description like <img onerror=...> is shown as the characters it is.

/**
 * h('p', { class: 'hint', id: 'x' }, 'text', child) -> <p class="hint" id="x">text<child></p>
 * Attributes: `on: { click: fn }` adds listeners; `false`/`null`/`undefined` values are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === 'on') {
      for (const [event, handler] of Object.entries(value)) element.addEventListener(event, handler);
    } else if (name === 'checked' || name === 'value' || name === 'disabled') {
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children (text only through text nodes). */
export function replaceChildren(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/** Tells screen-reader users what just happened (the live region in the page shell). */
export function announce(message) {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A fresh text node after a tick makes repeated identical messages be read again.
  setTimeout(() => (region.textContent = message), 50);
}
