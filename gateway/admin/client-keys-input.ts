// A client's public keys as the admin API takes them: the method decides whether `jwks` is required
// (private_key_jwt) or refused (a secret method), and each key is checked (gateway/oauth/client-jwks.ts).
// A problem is a 400 validation_error on the field, saying what is wrong (a private key: that it is one).
import { invalidField } from '../errors.js';
import { checkDistinct, clientKeyFromJwk, clientKeysFromJwks } from '../oauth/client-jwks.js';
import { PublicKeyError } from '../service-accounts/public-key-errors.js';
import type { ClientAuthMethod, ClientKey } from '../store/types.js';

function asFieldError<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof PublicKeyError) throw invalidField(field, error.message);
    throw error;
  }
}

/** The keys a new client is created with: one or two for private_key_jwt, none for a secret client. */
export function clientKeysFromInput(method: ClientAuthMethod, jwks: unknown, addedAt: string): ClientKey[] {
  if (method !== 'private_key_jwt') {
    if (jwks !== undefined) throw invalidField('jwks', `is only for token_endpoint_auth_method private_key_jwt; a ${method} client has a secret, not keys`);
    return [];
  }
  if (jwks === undefined) throw invalidField('jwks', 'is required with token_endpoint_auth_method private_key_jwt: the public keys the client signs with');
  return asFieldError('jwks', () => clientKeysFromJwks(jwks, addedAt));
}

/** One key to add to those held (checked against them: a kid or key held already is refused). */
export function clientKeyFromInput(jwk: unknown, addedAt: string): ClientKey {
  return asFieldError('jwk', () => clientKeyFromJwk(jwk, addedAt));
}

/** Whether the key (its kid or the key itself) is held already. */
export function holdsKey(keys: readonly ClientKey[], key: ClientKey): boolean {
  try {
    checkDistinct([...keys, key]);
    return false;
  } catch (error) {
    if (error instanceof PublicKeyError) return true;
    throw error;
  }
}
