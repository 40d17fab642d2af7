// Sign-in page: the admin token, or a dashboard user's name and password.
import { request } from './api.js';
import { clearErrors, clearErrorsOnEdit, showFieldError, showFieldErrors, showFormError } from './form-errors.js';
import { showSessionLength } from './session-length.js';

const form = document.getElementById('sign-in-form');
clearErrorsOnEdit(form);
const tokenFields = document.getElementById('token-fields');
const passwordFields = document.getElementById('password-fields');

const NOTICES = { expired: 'Your session has ended. Sign in again to continue.', 'signed-out': 'You have signed out.' };
const reason = new URLSearchParams(window.location.search).get('reason');
if (NOTICES[reason]) {
  const notice = document.getElementById('notice');
  notice.textContent = NOTICES[reason];
  notice.hidden = false;
}

function mode() {
  return form.querySelector('input[name="mode"]:checked').value;
}

for (const radio of form.querySelectorAll('input[name="mode"]')) {
  radio.addEventListener('change', () => {
    tokenFields.hidden = mode() !== 'token';
    passwordFields.hidden = mode() !== 'password';
    clearErrors(form);
  });
}

// The form's general error sits above it, outside the form element.
const summary = document.getElementById('form-error');
summary.classList.add('form-summary');
summary.tabIndex = -1;
form.prepend(summary);

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearErrors(form);
  const byToken = mode() === 'token';
  const body = byToken ? { token: form.token.value } : { username: form.username.value.trim(), password: form.password.value };
  const missing = byToken
    ? [!body.token && { field: 'token', message: 'Enter the admin token.' }]
    : [!body.username && { field: 'username', message: 'Enter your username.' }, !body.password && { field: 'password', message: 'Enter your password.' }];
  if (missing.some(Boolean)) return void showFieldErrors(form, missing.filter(Boolean));
  const button = document.getElementById('sign-in-button');
  button.disabled = true;
  try {
    await request('POST', '/dashboard/api/sign-in', body);
    window.location.assign('/dashboard');
  } catch (error) {
    if (error.code === 'too_many_requests') showFormError(form, error.message);
    else if (!showFieldError(form, error.field, error.message)) showFormError(form, error.message);
    // A wrong password is cleared for the next attempt; a long admin token is kept, to be corrected.
    if (error.code === 'admin_unauthorized' && !byToken) form.password.value = '';
  } finally {
    button.disabled = false;
  }
});

void showSessionLength(document.getElementById('session-length'));
