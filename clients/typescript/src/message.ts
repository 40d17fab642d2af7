// The parts of an HTTP request that RFC 9421 components are derived from. Both the client
// (signing before sending) and the gateway (verifying what it received) describe a request this
// way, so the signature base is built by one function for both.

/** Header field values by lower-case name; a name sent on several lines has several values. */
export type HeaderFields = ReadonlyMap<string, readonly string[]>;

export interface SignableRequest {
  /** The method as sent (case-sensitive, conventionally upper case). */
  readonly method: string;
  /** host[:port] as sent in Host (HTTP/1.1) or :authority, lower-cased, default port omitted. */
  readonly authority: string;
  /** http or https; only needed for @scheme and @target-uri. */
  readonly scheme?: string;
  /** The raw absolute path, not percent-decoded ("/" when empty). */
  readonly path: string;
  /** The raw query without the leading "?", or null when the request has none. */
  readonly query: string | null;
  readonly headers: HeaderFields;
}

/** Builds header fields from name/value pairs (names compared case-insensitively, order kept). */
export function headerFields(pairs: Iterable<readonly [string, string | readonly string[] | undefined]>): HeaderFields {
  const fields = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    const values = fields.get(key) ?? [];
    for (const v of typeof value === 'string' ? [value] : value) values.push(v);
    fields.set(key, values);
  }
  return fields;
}

/** Node's rawHeaders ([name, value, name, value, ...]) keep every field line, unlike req.headers. */
export function headerFieldsFromRaw(rawHeaders: readonly string[]): HeaderFields {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return headerFields(pairs);
}

/** A request without its header fields: what the derived components come from. */
export type RequestTarget = Omit<SignableRequest, 'headers'>;

/** The request line and Host of an absolute URL, as a client that sends to it would sign them. */
export function targetFromUrl(method: string, url: string | URL): RequestTarget {
  const target = new URL(url);
  // URL.host is already lower case with the scheme's default port omitted (HTTP 4.2.3 normalisation).
  return {
    method,
    authority: target.host,
    scheme: target.protocol.replace(/:$/, ''),
    path: target.pathname === '' ? '/' : target.pathname,
    query: target.search === '' ? null : target.search.slice(1),
  };
}

/** The request parts of an absolute URL, as a client that sends to it would sign them. */
export function requestFromUrl(method: string, url: string | URL, headers: HeaderFields): SignableRequest {
  return { ...targetFromUrl(method, url), headers };
}
