// Reading Signature-Input and Signature (RFC 9421 sections 4.1, 4.2) with an RFC 8941 parser
// (dictionary-parser.ts), and choosing the one signature a verifier checks. Members that are not
// chosen are never judged, so a message may carry other parties' signatures in forms this library
// does not implement.
import type { Dictionary, InnerList, Item } from 'structured-headers';
import { readParameters, SignatureError, type SignatureDescriptor, type SignatureParameters } from '@access-gateway/signing';
import { parseDictionary } from './dictionary-parser.js';
import { fromParsedParameters } from './parsed-parameters.js';

export interface ReceivedSignature extends SignatureDescriptor {
  readonly label: string;
  readonly params: SignatureParameters;
  readonly signature: Buffer;
}

type Entry = { label: string; keyid: string | undefined; tag: string | undefined; read: () => ReceivedSignature };

function parse(name: string, value: string): Dictionary {
  try {
    return parseDictionary(value);
  } catch (error) {
    throw new SignatureError('malformed', `${name} is not a valid structured field dictionary: ${(error as Error).message}`);
  }
}

function isInnerList(value: Item | InnerList): value is InnerList {
  return Array.isArray(value[0]);
}

function readEntry(label: string, input: Item | InnerList, signatures: Dictionary): ReceivedSignature {
  if (!isInnerList(input)) throw new SignatureError('malformed', `Signature-Input member ${label} must be an inner list of component names.`);
  const [items, parsedParameters] = input;
  const parameters = fromParsedParameters(parsedParameters);
  const components = items.map(([name, componentParams]) => {
    if (typeof name !== 'string') throw new SignatureError('malformed', `Signature-Input member ${label} lists a component that is not a string.`);
    if (componentParams.size > 0) throw new SignatureError('component_unsupported', `The component "${name}" has parameters, which are not supported.`);
    return name;
  });
  const signed = signatures.get(label);
  if (!signed) throw new SignatureError('malformed', `Signature has no member ${label}, which Signature-Input names.`);
  if (isInnerList(signed) || !(signed[0] instanceof ArrayBuffer)) throw new SignatureError('malformed', `Signature member ${label} must be a byte sequence.`);
  return { label, components, parameters, params: readParameters(parameters), signature: Buffer.from(signed[0]) };
}

export class SignatureHeaders {
  private constructor(private readonly entries: Entry[]) {}

  static parse(signatureInput: string, signature: string): SignatureHeaders {
    const inputs = parse('Signature-Input', signatureInput);
    const signatures = parse('Signature', signature);
    const entries: Entry[] = [];
    for (const [label, input] of inputs) {
      const parameter = (name: string) => {
        const value = isInnerList(input) ? input[1].get(name) : undefined;
        return typeof value === 'string' ? value : undefined;
      };
      entries.push({ label, keyid: parameter('keyid'), tag: parameter('tag'), read: () => readEntry(label, input, signatures) });
    }
    return new SignatureHeaders(entries);
  }

  get labels(): string[] {
    return this.entries.map((e) => e.label);
  }

  byLabel(label: string): ReceivedSignature {
    const entry = this.entries.find((e) => e.label === label);
    if (!entry) throw new SignatureError('not_found', `There is no signature labelled ${label}.`);
    return entry.read();
  }

  /** The one signature whose keyid is `keyid`; none or several is an error, never a guess. */
  byKeyId(keyid: string): ReceivedSignature {
    const matches = this.entries.filter((e) => e.keyid === keyid);
    if (matches.length === 0) throw new SignatureError('not_found', 'No signature has a keyid equal to the x-access-id header.');
    if (matches.length > 1) throw new SignatureError('ambiguous', 'More than one signature has a keyid equal to the x-access-id header.');
    return matches[0]!.read();
  }

  /** The one signature with this tag parameter (RFC 9421 section 2.3: what the signature is for); none or several is an error. */
  byTag(tag: string): ReceivedSignature {
    const matches = this.entries.filter((e) => e.tag === tag);
    if (matches.length === 0) throw new SignatureError('not_found', `No signature has tag="${tag}".`);
    if (matches.length > 1) throw new SignatureError('ambiguous', `More than one signature has tag="${tag}".`);
    return matches[0]!.read();
  }

  /** The only signature in the message. */
  single(): ReceivedSignature {
    if (this.entries.length !== 1)
      throw new SignatureError(
        this.entries.length === 0 ? 'not_found' : 'ambiguous',
        'Name the label or keyid: the message does not carry exactly one signature.',
      );
    return this.entries[0]!.read();
  }
}
