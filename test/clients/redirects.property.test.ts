// The client package's redirect rules (clients/typescript/src/redirects.ts) on any Location a server
// may send: redirectTarget never throws, follows only what the policy allows, and its refusal names
// origins only (never a path, query, fragment or userinfo, where a token may sit); redirectedRequest
// changes the method and drops the body, its headers and the first origin's credentials as HTTP says.
import fc from 'fast-check';
import t from 'tap';
import { RedirectRefusedError } from '../../clients/typescript/src/errors.js';
import { redirectedRequest, redirectPolicy, redirectTarget, REDIRECT_STATUSES, type FollowRedirects } from '../../clients/typescript/src/redirects.js';
import { holds } from '../helpers/property.js';

const SECRET = 'S3cr3tT0ken';
const FROM = new URL(`http://127.0.0.1:8080/v1/transfers/${SECRET}?key=${SECRET}`);

const status = fc.constantFrom(300, ...REDIRECT_STATUSES);
const follow = fc.constantFrom<FollowRedirects | undefined>(undefined, 'same-origin', 'any-origin');
const host = fc.constantFrom('127.0.0.1:8080', '127.0.0.1:9090', 'bank.example', 'BANK.example:443', '[::1]:8080', 'xn--bcher-kva.example', '');
const scheme = fc.constantFrom('http:', 'https:', 'HTTP:', 'ftp:', 'javascript:', 'data:', '');
const piece = fc.string({ unit: fc.constantFrom('a', '/', '.', '%', '?', '#', '@', ':', ' ', '\\', '\t', 'é', SECRET), maxLength: 6 });
/** Locations shaped like URLs (absolute, scheme-relative, relative), with the secret where a token could be. */
const shaped = fc
  .record({
    scheme,
    slashes: fc.constantFrom('//', '/', ''),
    user: fc.constantFrom('', `u:${SECRET}@`),
    host,
    path: piece,
    query: fc.constantFrom('', `?t=${SECRET}`),
    hash: fc.constantFrom('', `#${SECRET}`),
  })
  .map(({ scheme, slashes, user, host, path, query, hash }) => `${scheme}${slashes}${user}${host}/${path}${query}${hash}`);
const location = fc.oneof(shaped, fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));

t.test('redirectTarget: a URL only when the policy allows it, else a refusal naming origins only', async (t) => {
  holds(
    t,
    fc.property(
      location,
      status,
      follow,
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 0, max: 6 }),
      (where, code, followRedirects, hops, maxRedirects) => {
        const result = redirectTarget(FROM, code, where, redirectPolicy(followRedirects, maxRedirects), hops);
        if (result instanceof RedirectRefusedError) {
          const text = `${result.message} ${JSON.stringify(result)}`;
          if (text.includes(SECRET)) throw new Error(`the refusal shows more than origins: ${result.message}`);
          if (result.status !== code || result.origin !== FROM.origin) throw new Error('the refusal names another status or origin');
          if (result.reason === 'invalid_location') return result.locationOrigin === null;
          return result.locationOrigin === new URL(where, FROM).origin && result.message.includes(result.locationOrigin);
        }
        if (result.protocol !== 'http:' && result.protocol !== 'https:') throw new Error(`followed to ${result.protocol}`);
        if (followRedirects === undefined || hops >= maxRedirects) throw new Error('followed what the policy does not allow');
        if (followRedirects === 'same-origin' && result.origin !== FROM.origin) throw new Error('followed to another origin under same-origin');
        return result.href === new URL(where, FROM).href;
      },
    ),
    2000,
  );
});

const method = fc.constantFrom('GET', 'HEAD', 'POST', 'post', 'PUT', 'PATCH', 'DELETE');
const headerName = fc.constantFrom(
  'Content-Type',
  'content-length',
  'Content-Encoding',
  'content-language',
  'Content-Location',
  'Transfer-Encoding',
  'Authorization',
  'proxy-authorization',
  'Cookie',
  'Host',
  'Accept',
  'x-request-id',
);
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location', 'transfer-encoding'];
const ORIGIN_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'host'];

t.test('redirectedRequest: 303 to GET, 301/302 POST to GET, 307/308 keep; the first origin keeps its credentials', async (t) => {
  holds(
    t,
    fc.property(
      method,
      fc.constantFrom(...REDIRECT_STATUSES),
      fc.dictionary(headerName, fc.string({ maxLength: 5 })),
      fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
      fc.constantFrom('http://127.0.0.1:8080/x', 'http://127.0.0.1:9090/y'),
      (m, code, headers, body, to) => {
        const next = redirectedRequest({ url: FROM, method: m, headers, body }, code, new URL(to));
        const upper = m.toUpperCase();
        const toGet = (code === 303 && upper !== 'HEAD') || ((code === 301 || code === 302) && upper === 'POST');
        const names = Object.keys(next.headers).map((n) => n.toLowerCase());
        const crossOrigin = new URL(to).origin !== FROM.origin;
        return (
          next.method === (toGet ? 'GET' : m) &&
          next.body === (toGet ? undefined : body) &&
          next.url.href === to &&
          (!toGet || !names.some((n) => BODY_HEADERS.includes(n))) &&
          (!crossOrigin || !names.some((n) => ORIGIN_HEADERS.includes(n))) &&
          Object.keys(headers).every(
            (n) => n in next.headers || (toGet && BODY_HEADERS.includes(n.toLowerCase())) || (crossOrigin && ORIGIN_HEADERS.includes(n.toLowerCase())),
          )
        );
      },
    ),
    1000,
  );
});

t.test('examples', async (t) => {
  const policy = redirectPolicy('same-origin');
  t.equal((redirectTarget(FROM, 307, '/v1/other?x=1', policy, 0) as URL).href, 'http://127.0.0.1:8080/v1/other?x=1', 'a relative Location, within the origin');
  t.match(
    redirectTarget(FROM, 308, '//127.0.0.1:9090/x', policy, 0),
    { reason: 'cross_origin', locationOrigin: 'http://127.0.0.1:9090' },
    'scheme-relative to another port',
  );
  t.match(
    redirectTarget(FROM, 302, 'HTTPS://127.0.0.1:8080/', policy, 0),
    { reason: 'cross_origin', locationOrigin: 'https://127.0.0.1:8080' },
    'another scheme is another origin',
  );
  t.match(redirectTarget(FROM, 301, 'javascript:alert(1)', redirectPolicy('any-origin'), 0), { reason: 'invalid_location', locationOrigin: null });
  t.match(redirectTarget(FROM, 303, 'http://[::1', redirectPolicy('any-origin'), 0), { reason: 'invalid_location' }, 'not a URL');
  t.match(redirectTarget(FROM, 307, '/x', policy, 5), { reason: 'too_many_redirects', message: /after 5 redirects/ });
  t.match(redirectTarget(FROM, 307, `/x?${SECRET}`, redirectPolicy(undefined), 0), {
    reason: 'not_followed',
    locationOrigin: FROM.origin,
    message: /^http:\/\/127\.0\.0\.1:8080 answered 307 with a redirect to http:\/\/127\.0\.0\.1:8080, not followed/,
  });
});
