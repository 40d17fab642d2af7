// The signature base (RFC 9421 section 2.5): one line per covered component, then the
// "@signature-params" line, joined by LF with no trailing newline.
import { checkComponentName, componentValue } from './components.js';
import { SignatureError } from './errors.js';
import type { SignableRequest } from './message.js';
import { serializeSignatureParams, type SignatureDescriptor } from './signature-params.js';
import { serializeString } from './structured-fields.js';

export function buildSignatureBase(request: SignableRequest, signature: SignatureDescriptor): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const name of signature.components) {
    if (name === '@signature-params') throw new SignatureError('malformed', '"@signature-params" cannot be a covered component.');
    checkComponentName(name);
    if (seen.has(name)) throw new SignatureError('malformed', `The component "${name}" is covered twice.`);
    seen.add(name);
    lines.push(`${serializeString(name)}: ${componentValue(request, name)}`);
  }
  lines.push(`"@signature-params": ${serializeSignatureParams(signature)}`);
  return lines.join('\n');
}
