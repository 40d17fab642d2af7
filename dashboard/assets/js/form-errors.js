// Errors next to the fields they concern: each field wrapper has data-field="<API field name>"
// and a .field-error element that its input names in aria-describedby.
import { replaceChildren } from './dom.js';

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
  if (error.code === 'validation_error' && showFieldError(form, error.field, messageFor(error))) return;
  showFormError(form, error.message);
}

/** "public_key: must start with ssh-ed25519" reads better next to the field without its name. */
function messageFor(error) {
  const prefix = `${error.field}: `;
  const text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
