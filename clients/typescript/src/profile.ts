// The gateway's signing profile (SIGNING.md): what a banking request signature must cover.
// Shared by the signer in this library and the gateway's verifier.

export const ALGORITHM = 'ed25519';
export const ACCESS_ID_HEADER = 'x-access-id';
export const REQUIRED_COMPONENTS = ['@method', '@authority', '@path', '@query', ACCESS_ID_HEADER] as const;
/** Also required whenever the request has a body. */
export const BODY_COMPONENT = 'content-digest';
export const DEFAULT_LABEL = 'sig1';

export function requiredComponents(hasBody: boolean): string[] {
  return hasBody ? [...REQUIRED_COMPONENTS, BODY_COMPONENT] : [...REQUIRED_COMPONENTS];
}
