// The gateway's signature on a response of a route with message_signing: fapi-2 (the FAPI 2.0 HTTP
// signature profile, RFC 9421): @status, the response's content-type and content-digest, and, with
// the req parameter of section 2.4, the request's @method, @target-uri, content-digest and its
// signature (Signature and Signature-Input members, by key), so that the answer is bound to what was
// asked. Covered components with parameters are built here: the shared base builder
// (@access-gateway/signing) covers a request's own components only.
import { componentValue, FAPI_RESPONSE_TAG, signHttpMessage, type SignableRequest } from '@access-gateway/signing';
import { serializeDictionary, serializeInnerList, serializeItem, type Item, type Parameters } from '@access-gateway/signing/structured-fields';
import type { ResponseSigningKey } from './response-signing-key.js';

/** What a response signature covers of the request it answers. */
export interface AnsweredRequest {
  /** The request as received, with its scheme (for @target-uri). */
  readonly request: SignableRequest;
  /** The request's FAPI signature: its label and the strict serialisations of its Signature-Input and Signature members. */
  readonly signature: { readonly label: string; readonly input: string; readonly value: string };
}

/** The response as it goes to the client: the status and the header fields the signature covers. */
export interface SignableResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  /** The Content-Digest the gateway computed over the body it sends; undefined: no body. */
  readonly contentDigest: string | undefined;
}

/** The label of the gateway's signature on a response (a response carries no other). */
const RESPONSE_LABEL = 'sig1';

type Component = Item;

const req = (name: string, key?: string): Component => [
  name,
  new Map<string, string | boolean>(
    key === undefined
      ? [['req', true]]
      : [
          ['req', true],
          ['key', key],
        ],
  ),
];
const own = (name: string): Component => [name, new Map()];

function componentsOf(response: SignableResponse, answered: AnsweredRequest): Component[] {
  const components: Component[] = [own('@status')];
  if (response.contentType !== undefined) components.push(own('content-type'));
  if (response.contentDigest !== undefined) components.push(own('content-digest'));
  components.push(req('@method'), req('@target-uri'));
  if (answered.request.headers.has('content-digest')) components.push(req('content-digest'));
  components.push(req('signature', answered.signature.label), req('signature-input', answered.signature.label));
  return components;
}

function valueOf([name, parameters]: Component, response: SignableResponse, answered: AnsweredRequest): string {
  if (parameters.has('key')) return name === 'signature' ? answered.signature.value : answered.signature.input;
  if (parameters.has('req')) return componentValue(answered.request, name as string);
  if (name === '@status') return String(response.status);
  return (name === 'content-type' ? response.contentType : response.contentDigest)!;
}

/** The response's signature base (RFC 9421 section 2.5) and its Signature-Input member value. */
function responseSignatureBase(response: SignableResponse, answered: AnsweredRequest, parameters: Parameters): { base: string; input: string } {
  const components = componentsOf(response, answered);
  const lines = components.map((component) => `${serializeItem(component)}: ${valueOf(component, response, answered)}`);
  const input = serializeInnerList([components, parameters]);
  lines.push(`"@signature-params": ${input}`);
  return { base: lines.join('\n'), input };
}

/** The Signature-Input and Signature fields of a response, signed now with the gateway's response-signing key. */
export function signResponse(response: SignableResponse, answered: AnsweredRequest, key: ResponseSigningKey, nowSeconds: number): Record<string, string> {
  const parameters = new Map<string, string | number>([
    ['created', nowSeconds],
    ['alg', 'ed25519'],
    ['keyid', key.keyid],
    ['tag', FAPI_RESPONSE_TAG],
  ]);
  const { base, input } = responseSignatureBase(response, answered, parameters);
  return {
    'signature-input': `${RESPONSE_LABEL}=${input}`,
    signature: serializeDictionary([[RESPONSE_LABEL, [signHttpMessage(base, key.privateKey), new Map()]]]),
  };
}
