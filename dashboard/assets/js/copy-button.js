// A button that copies a value and says so (visibly and to screen readers).
import { announce, h } from './dom.js';

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain-HTTP dashboards have no Clipboard API: fall back to a selected, off-screen text area.
  const area = h('textarea', { class: 'visually-hidden', readonly: true }, text);
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy failed');
}

export function copyButton(value, what) {
  const label = h('span', {}, 'Copy');
  const button = h('button', { type: 'button', class: 'button', 'aria-label': `Copy ${what}` }, label);
  button.addEventListener('click', async () => {
    try {
      await copyText(value);
      label.textContent = 'Copied';
      announce(`${what} copied to the clipboard.`);
    } catch {
      label.textContent = 'Copy failed';
      announce(`Could not copy the ${what}. Select it and copy it by hand.`);
    }
    setTimeout(() => (label.textContent = 'Copy'), 2500);
  });
  return button;
}
