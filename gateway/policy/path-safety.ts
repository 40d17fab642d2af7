// The path the gateway authorizes must be exactly the path the upstream acts on. Rather than
// normalise (and risk normalising differently from the upstream), every form that servers are
// known to interpret differently is rejected with 400.
import { GatewayError } from '../errors.js';

export interface SafeTarget {
  /** The raw path, as received and as forwarded. */
  path: string;
  /** The raw query without '?', or '' when there is none. */
  query: string;
  /** The path's segments, percent-decoded, for matching. */
  segments: string[];
}

// Encoded '/', '\', '.', NUL and '%' itself (double encoding) mean different things to different servers.
const FORBIDDEN_ENCODINGS = /%(2f|5c|2e|00|25)/i;
const VALID_PERCENT = /%(?![0-9a-f]{2})/i;
// Printable ASCII minus characters that never belong unencoded in a path; ';' is excluded
// because servlet containers treat it as a path parameter separator.
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,=:@%/]*$/;

function reject(problem: string): never {
  throw new GatewayError('ambiguous_path', `The request path is rejected: ${problem}.`);
}

/** Percent-decoded as UTF-8; bytes that are not UTF-8 (%ff, overlong %c0%af) have no one meaning. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return reject('it contains a percent-encoding that is not UTF-8');
  }
}

export function checkTarget(rawUrl: string): SafeTarget {
  const queryAt = rawUrl.indexOf('?');
  const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const query = queryAt === -1 ? '' : rawUrl.slice(queryAt + 1);
  if (!path.startsWith('/')) reject('it must start with /');
  if (path.includes('\\')) reject('it contains a backslash');
  if (!PATH_CHARS.test(path)) reject('it contains characters that must be percent-encoded (or ;)');
  if (VALID_PERCENT.test(path)) reject('it contains a malformed percent-encoding');
  if (FORBIDDEN_ENCODINGS.test(path)) reject('it contains an encoded slash, backslash, dot, percent or NUL');
  if (query.includes('#') || /[\u0000-\u001f\u007f\s]/.test(query)) reject('the query contains control characters, spaces or #');

  const rawSegments = path.slice(1).split('/');
  const segments: string[] = [];
  for (let i = 0; i < rawSegments.length; i++) {
    const segment = rawSegments[i]!;
    if (segment === '.' || segment === '..') reject('it contains a dot segment');
    // An empty segment is only allowed as the root path "/".
    if (segment === '' && !(rawSegments.length === 1)) reject('it contains an empty segment (// or a trailing /)');
    segments.push(decodeSegment(segment));
  }
  return { path, query, segments: path === '/' ? [] : segments };
}
