// Errors next to the fields they concern: each field wrapper has data-field="<API field name>"
// and a .field-error element that its input names in aria-describedby.
import { replaceChildren } from './dom.js';

/** Once the person edits a field in error, its message goes away (it described the old value). */
export function clearErrorsOnEdit(form) {
  const clear = (event) => {
    const wrapper = event.target.closest('[data-field]');
    const error = wrapper?.querySelector('.field-error');
    if (!error || error.hidden) return;
    error.hidden = true;
    error.textContent = '';
    for (const input of wrapper.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  };
  form.addEventListener('input', clear);
  form.addEventListener('change', clear);
}

export function clearErrors(form) {
  for (const error of form.querySelectorAll('.field-error')) {
    error.hidden = true;
    error.textContent = '';
  }
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  const summary = form.querySelector('.form-summary');
  if (summary) summary.hidden = true;
}

/** Shows the message at the field; returns false when the form has no such field. */
export function showFieldError(form, field, message) {
  const wrapper = field ? form.querySelector(`[data-field="${CSS.escape(field)}"]`) : null;
  if (!wrapper) return false;
  const error = wrapper.querySelector('.field-error');
  error.textContent = message;
  error.hidden = false;
  const inputs = wrapper.querySelectorAll('input, textarea');
  for (const input of inputs) input.setAttribute('aria-invalid', 'true');
  inputs[0]?.focus();
  return true;
}

/** A message that concerns the whole form (network, permissions, server errors). */
export function showFormError(form, message) {
  const summary = form.querySelector('.form-summary');
  replaceChildren(summary, message);
  summary.hidden = false;
  summary.focus();
}

/** Shows an ApiError where it belongs: at its field when the form has it, above the form otherwise. */
export function showApiError(form, error) {
  if (error.code === 'validation_error' && showFieldError(form, error.field, messageFor(form, error))) return;
  showFormError(form, error.message);
}

/** "public_key: is a ssh-rsa key" becomes "Public key is a ssh-rsa key": the label people see, not the API's name. */
function messageFor(form, error) {
  const prefix = `${error.field}: `;
  if (!error.message.startsWith(prefix)) return error.message;
  const rest = error.message.slice(prefix.length);
  const label = form.querySelector(`[data-field="${CSS.escape(error.field)}"]`)?.dataset.label ?? error.field;
  return /^(is|must|has|holds|contains|key data)\b/.test(rest) ? `${label} ${rest}` : `${label}: ${rest}`;
}
