// The dashboard's calls to the admin API: same origin, the session cookie, and the session's CSRF
// token on every change. Errors keep the API's code and the field they concern.

let csrfToken = null;

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `The gateway answered ${status}.`);
    this.status = status;
    this.code = body?.error ?? 'unknown_error';
    this.field = body?.field ?? null;
    // Every field the answer names: a list of { field, message } when the API sends one, else its single field.
    this.fieldErrors = Array.isArray(body?.errors)
      ? body.errors.filter((e) => e && typeof e.field === 'string')
      : this.field
        ? [{ field: this.field, message: this.message }]
        : [];
    this.retryAfter = null;
  }
}

async function readBody(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { message: text };
  }
}

/** Sends the request; returns the parsed body, or throws ApiError. */
export async function request(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response;
  try {
    response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { error: 'network_error', message: 'The gateway could not be reached. Check the connection and try again.' });
  }
  const parsed = await readBody(response);
  if (!response.ok) {
    const error = new ApiError(response.status, parsed);
    error.retryAfter = response.headers.get('retry-after');
    // The session ended (expired, signed out elsewhere, token rotated): back to sign-in.
    if (response.status === 401 && error.code === 'admin_unauthorized' && !path.endsWith('/sign-in')) {
      window.location.assign('/dashboard/sign-in?reason=expired');
    }
    throw error;
  }
  return parsed;
}

/** Loads the session (user and CSRF token); redirects to sign-in when there is none. */
export async function loadSession() {
  const session = await request('GET', '/dashboard/api/session');
  csrfToken = session.csrf_token;
  return session;
}

export const api = {
  get: (path) => request('GET', path),
  post: (path, body) => request('POST', path, body),
  patch: (path, body) => request('PATCH', path, body),
  delete: (path) => request('DELETE', path),
};
