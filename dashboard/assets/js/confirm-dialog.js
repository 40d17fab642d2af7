// A modal confirmation on the page's <dialog>: resolves true only when the person confirms.
import { replaceChildren } from './dom.js';

export function confirmDialog({ title, body, confirmLabel }) {
  const dialog = document.getElementById('confirm-dialog');
  replaceChildren(document.getElementById('confirm-title'), title);
  replaceChildren(document.getElementById('confirm-body'), body);
  replaceChildren(document.getElementById('confirm-ok'), confirmLabel);
  const opener = document.activeElement;
  dialog.returnValue = '';
  dialog.showModal();
  // The safe choice has focus first: Enter alone never deletes.
  document.getElementById('confirm-cancel').focus();
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
        resolve(dialog.returnValue === 'confirm');
      },
      { once: true },
    );
  });
}
