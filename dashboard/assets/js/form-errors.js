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

/** Shows the message at the field, without moving focus; returns false when the form has no such field. */
function markField(form, field, message) {
  const wrapper = field ? form.querySelector(`[data-field="${CSS.escape(field)}"]`) : null;
  if (!wrapper) return false;
  const error = wrapper.querySelector('.field-error');
  error.textContent = message;
  error.hidden = false;
  for (const input of wrapper.querySelectorAll('input, textarea')) input.setAttribute('aria-invalid', 'true');
  return true;
}

/**
 * Shows every { field, message } at its field at once (so one submit tells everything to fix) and
 * moves focus to the first; returns the ones the form has no field for.
 */
export function showFieldErrors(form, errors) {
  const unplaced = errors.filter(({ field, message }) => !markField(form, field, message));
  if (unplaced.length < errors.length) form.querySelector('[aria-invalid="true"]')?.focus();
  return unplaced;
}

/** Shows the message at the field and focuses it; returns false when the form has no such field. */
export function showFieldError(form, field, message) {
  return showFieldErrors(form, [{ field, message }]).length === 0;
}

/** A message that concerns the whole form (network, permissions, server errors). */
export function showFormError(form, message) {
  const summary = form.querySelector('.form-summary');
  replaceChildren(summary, message);
  summary.hidden = false;
  summary.focus();
}

/** Shows an ApiError where it belongs: each field error at its field when the form has it, above the form otherwise. */
export function showApiError(form, error) {
  const fieldErrors =
    error.code === 'validation_error' ? error.fieldErrors.map(({ field, message }) => ({ field, message: messageFor(form, field, message) })) : [];
  const unplaced = showFieldErrors(form, fieldErrors);
  if (fieldErrors.length === 0 || unplaced.length > 0) showFormError(form, unplaced.length > 0 ? unplaced.map((e) => e.message).join(' ') : error.message);
}

/** "public_key: is a ssh-rsa key" becomes "Public key is a ssh-rsa key": the label people see, not the API's name. */
function messageFor(form, field, message) {
  const prefix = `${field}: `;
  if (!message.startsWith(prefix)) return message;
  const rest = message.slice(prefix.length);
  const label = form.querySelector(`[data-field="${CSS.escape(field)}"]`)?.dataset.label ?? field;
  return /^(is|must|has|holds|contains|key data)\b/.test(rest) ? `${label} ${rest}` : `${label}: ${rest}`;
}
