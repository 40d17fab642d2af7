// PLACEHOLDER until the signed-request checks land (issue 3): every signature route answers 401.
import { GatewayError } from '../errors.js';
import type { Settings } from '../config/settings.js';
import type { CredentialStore } from '../store/types.js';
import type { Authenticator } from '../pipeline/authenticator.js';
import type { ServiceAccountPrincipal } from '../pipeline/context.js';

export class SignatureAuthenticator implements Authenticator {
  constructor(private readonly store: CredentialStore, private readonly settings: Settings) {}

  async authenticate(): Promise<ServiceAccountPrincipal> {
    void this.store;
    void this.settings;
    throw new GatewayError('signature_missing');
  }
}
