// Component values (RFC 9421 section 2): derived components from the request line and Host, and
// HTTP fields combined as section 2.1 says. Component identifiers with parameters (sf, key, bs,
// req, tr, name) are not implemented and fail, as section 2.5 requires for anything not understood.
import { SignatureError } from './errors.js';
import type { SignableRequest } from './message.js';

export const DERIVED_COMPONENTS = ['@method', '@target-uri', '@authority', '@scheme', '@request-target', '@path', '@query'] as const;

function unavailable(name: string, why: string): never {
  throw new SignatureError('component_unavailable', `The covered component "${name}" ${why}.`);
}

function derivedValue(request: SignableRequest, name: string): string {
  const query = request.query === null ? '' : `?${request.query}`;
  switch (name) {
    case '@method':
      return request.method;
    case '@authority':
      return request.authority;
    case '@path':
      return request.path === '' ? '/' : request.path;
    case '@query':
      // Section 2.2.7: an absent query is the leading "?" alone.
      return `?${request.query ?? ''}`;
    case '@request-target':
      return `${request.path}${query}`;
    case '@scheme':
      if (!request.scheme) unavailable(name, 'needs the request scheme, which is not known here');
      return request.scheme.toLowerCase();
    case '@target-uri':
      if (!request.scheme) unavailable(name, 'needs the request scheme, which is not known here');
      return `${request.scheme.toLowerCase()}://${request.authority}${request.path}${query}`;
    default:
      throw new SignatureError('component_unsupported', `The derived component "${name}" is not supported.`);
  }
}

/** Section 2.1: field lines trimmed, obs-fold replaced by a space, joined with ", ". */
function fieldValue(request: SignableRequest, name: string): string {
  const values = request.headers.get(name);
  if (!values || values.length === 0) unavailable(name, 'is not present in the request');
  return values.map((v) => v.replace(/\r?\n[ \t]+/g, ' ').trim()).join(', ');
}

export function componentValue(request: SignableRequest, name: string): string {
  const value = name.startsWith('@') ? derivedValue(request, name) : fieldValue(request, name);
  // A newline would let one component forge the next line of the signature base.
  if (/[\r\n]/.test(value)) unavailable(name, 'contains a line break');
  return value;
}

/** Component names are lower-case field names or registered derived names. */
export function checkComponentName(name: string): void {
  if (name.startsWith('@')) {
    if (!(DERIVED_COMPONENTS as readonly string[]).includes(name)) {
      throw new SignatureError('component_unsupported', `The derived component "${name}" is not supported.`);
    }
    return;
  }
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw new SignatureError('malformed', `"${name}" is not a lower-case HTTP field name.`);
}
