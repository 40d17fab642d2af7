// Property tests of reading Signature-Input / Signature (RFC 9421) and Content-Digest (RFC 9530):
// arbitrary and structured-field-like values fail only with SignatureError (or a result value for
// the digest), and what the signing library writes always reads back to the same components,
// parameters and bytes, and verifies.
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { parseContentDigest } from '../../gateway/signing/content-digest.js';
import {
  checkContentDigest,
  contentDigest,
  headerFields,
  requestFromUrl,
  SignatureError,
  SignatureHeaders,
  signMessage,
  verifyReceivedSignature,
  type SignatureParameters,
} from '../../gateway/signing/index.js';
import { holds } from '../helpers/property.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const REQUEST = requestFromUrl(
  'POST',
  'https://banking.test/v1/transfers?x=1',
  headerFields([
    ['x-access-id', 'k1'],
    ['content-digest', 'sha-256=:AA==:'],
    ['x-multi', ['a', 'b']],
  ]),
);

function onlySignatureErrors(run: () => void): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
  }
}

/** Reads a header pair the way a verifier would, judging every member it can find. */
function readAll(signatureInput: string, signature: string, keyid: string): void {
  let headers: SignatureHeaders;
  try {
    headers = SignatureHeaders.parse(signatureInput, signature);
  } catch (error) {
    if (error instanceof SignatureError) return;
    throw error;
  }
  onlySignatureErrors(() => headers.single());
  onlySignatureErrors(() => headers.byKeyId(keyid));
  for (const label of headers.labels) {
    onlySignatureErrors(() => verifyReceivedSignature(REQUEST, headers.byLabel(label), publicKey));
  }
}

// Structured-field-like text: the grammar's pieces, recombined with mistakes.
const sfKey = fc.stringMatching(/^[a-z*][a-z0-9_.*-]{0,6}$/);
const sfBare = fc.oneof(
  fc.integer({ min: -1e15, max: 1e15 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e13, max: 1e13 }).map((d) => d.toFixed(3)),
  fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
  fc.stringMatching(/^[A-Za-z*][A-Za-z0-9:/!#$%&'*+.^_`|~-]{0,6}$/),
  fc.uint8Array({ maxLength: 70 }).map((b) => `:${Buffer.from(b).toString('base64')}:`),
  fc.constantFrom('?1', '?0', '@1700000000', '%"caf%c3%a9"', ':not base64:', '"unterminated', '1.2.3', '-', '1e3', '""'),
);
const sfParams = fc
  .array(fc.tuple(fc.oneof(sfKey, fc.constantFrom('created', 'expires', 'nonce', 'alg', 'keyid', 'tag')), fc.option(sfBare)), { maxLength: 4 })
  .map((ps) => ps.map(([k, v]) => `;${k}${v === null ? '' : `=${v}`}`).join(''));
const component = fc.oneof(
  fc.constantFrom(
    '"@method"',
    '"@path"',
    '"@query"',
    '"@authority"',
    '"@scheme"',
    '"@target-uri"',
    '"@status"',
    '"x-access-id"',
    '"content-digest"',
    '"x-multi"',
    '"X-Upper"',
    '"missing"',
  ),
  sfBare,
);
const innerList = fc
  .tuple(fc.array(fc.tuple(component, fc.oneof(fc.constant(''), sfParams)), { maxLength: 5 }), sfParams)
  .map(([items, params]) => `(${items.map(([c, p]) => `${c}${p}`).join(' ')})${params}`);
const member = fc.tuple(sfKey, fc.oneof(innerList, sfBare, fc.constant(''))).map(([k, v]) => (v === '' ? k : `${k}=${v}`));
const sfDictionary = fc.tuple(fc.array(member, { maxLength: 4 }), fc.constantFrom(', ', ',', ' ,', ',,', ' ')).map(([ms, sep]) => ms.join(sep));
const headerText = fc.oneof(sfDictionary, fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 40 }));

t.test('arbitrary Signature-Input and Signature: only SignatureError', async (t) => {
  holds(
    t,
    fc.property(headerText, headerText, fc.oneof(fc.constant('k1'), fc.string({ maxLength: 5 })), (input, signature, keyid) =>
      readAll(input, signature, keyid),
    ),
    500,
  );
});

t.test('a Signature-Input with a matching Signature: only SignatureError', async (t) => {
  // The Signature member carries the same labels, so reading gets past the dictionary checks.
  holds(
    t,
    fc.property(fc.array(fc.tuple(sfKey, innerList, sfBare), { minLength: 1, maxLength: 3 }), fc.constantFrom('k1', 'other'), (members, keyid) => {
      const input = members.map(([k, list]) => `${k}=${list}`).join(', ');
      const signature = members.map(([k, , value]) => `${k}=${value}`).join(', ');
      readAll(input, signature, keyid);
    }),
    500,
  );
});

// What a signer may legitimately produce.
const label = sfKey;
const headerName = fc.stringMatching(/^x-[a-z0-9-]{1,10}$/);
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const params: fc.Arbitrary<SignatureParameters> = fc.record(
  {
    created: fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }),
    expires: fc.integer({ min: 0, max: 999_999_999_999_999 }),
    nonce: printable,
    alg: fc.constant('ed25519'),
    keyid: printable,
    tag: printable,
  },
  { requiredKeys: [] },
);

t.test('what the signing library writes reads back unchanged and verifies', async (t) => {
  holds(
    t,
    fc.property(
      label,
      fc.subarray(['@method', '@authority', '@path', '@query', '@scheme', '@target-uri', '@request-target']),
      fc.uniqueArray(
        fc.tuple(
          headerName,
          printable.map((v) => v.trim()),
        ),
        { maxLength: 3, selector: ([name]) => name },
      ),
      params,
      (name, derived, fields, parameters) => {
        const request = requestFromUrl('GET', 'https://api.test:8443/a/b?c=d', headerFields(fields));
        const components = [...derived, ...fields.map(([field]) => field)];
        const signed = signMessage(request, components, parameters, privateKey, name);
        const read = SignatureHeaders.parse(signed['signature-input'], signed.signature).byLabel(name);
        if (JSON.stringify(read.components) !== JSON.stringify(components))
          throw new Error(`components ${JSON.stringify(read.components)} != ${JSON.stringify(components)}`);
        if (JSON.stringify(read.params) !== JSON.stringify(parameters))
          throw new Error(`params ${JSON.stringify(read.params)} != ${JSON.stringify(parameters)}`);
        if (read.signature.length !== 64) throw new Error(`signature of ${read.signature.length} bytes`);
        if (parameters.keyid !== undefined) SignatureHeaders.parse(signed['signature-input'], signed.signature).byKeyId(parameters.keyid);
        const verified = verifyReceivedSignature(request, read, publicKey);
        if (verified.base !== signed.base) throw new Error('the verifier rebuilt another base');
      },
    ),
    200,
  );
});

t.test('parameters a header cannot carry are a SignatureError when signing', async (t) => {
  const request = requestFromUrl('GET', 'https://api.test/', headerFields([]));
  const bad = fc.oneof(
    fc.record({ created: fc.oneof(fc.integer({ min: 1e15, max: Number.MAX_SAFE_INTEGER }), fc.double({ noInteger: true, noNaN: true })) }),
    fc.record({ keyid: fc.string({ minLength: 1, maxLength: 5 }).map((s) => `${s}\u00e9`) }),
    fc.record({ nonce: fc.constantFrom('a\nb', '\u0000', '\u{1f600}') }),
  );
  holds(
    t,
    fc.property(bad, (parameters) => {
      try {
        signMessage(request, ['@method'], parameters, privateKey);
      } catch (error) {
        if (error instanceof SignatureError && error.reason === 'malformed') return;
        throw error;
      }
      throw new Error(`signed with ${JSON.stringify(parameters)}`);
    }),
    100,
  );
});

const digestHeader = fc.oneof(
  fc.tuple(fc.constantFrom('sha-256', 'sha-512', 'md5', 'sha', 'unixsum', 'SHA-256'), sfBare, fc.option(sfParams)).map(([k, v, p]) => `${k}=${v}${p ?? ''}`),
  sfDictionary,
  fc.string({ maxLength: 60 }),
);

t.test('Content-Digest: arbitrary values give a result, never an exception', async (t) => {
  holds(
    t,
    fc.property(
      fc.oneof(
        digestHeader,
        fc.array(digestHeader, { maxLength: 3 }).map((hs) => hs.join(', ')),
      ),
      fc.uint8Array({ maxLength: 64 }),
      (header, body) => {
        const parsed = parseContentDigest(header);
        if (typeof parsed !== 'string' && (!Array.isArray(parsed) || parsed.length === 0)) throw new Error(`parse gave ${String(parsed)}`);
        const check = checkContentDigest(header, body);
        if (!['match', 'mismatch', 'no_supported_algorithm', 'malformed'].includes(check)) throw new Error(`check gave ${check}`);
      },
    ),
    500,
  );
});

t.test('Content-Digest: what the library writes matches its body and no other', async (t) => {
  holds(
    t,
    fc.property(
      fc.uint8Array({ maxLength: 512 }),
      fc.uint8Array({ minLength: 1, maxLength: 64 }),
      fc.constantFrom('sha-256' as const, 'sha-512' as const),
      (body, other, algorithm) => {
        const header = contentDigest(body, algorithm);
        const parsed = parseContentDigest(header);
        if (typeof parsed === 'string' || parsed.length !== 1 || parsed[0]![0] !== algorithm) throw new Error(`${header} parsed as ${JSON.stringify(parsed)}`);
        if (checkContentDigest(header, body) !== 'match') throw new Error(`${header} does not match its body`);
        if (Buffer.compare(Buffer.from(body), Buffer.from(other)) !== 0 && checkContentDigest(header, other) !== 'mismatch')
          throw new Error(`${header} matches another body`);
      },
    ),
    300,
  );
});
