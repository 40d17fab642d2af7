// Server-provided DPoP nonces (RFC 9449 sections 8 and 9), when GATEWAY_DPOP_NONCE_SECONDS is set:
// every proof must then carry a nonce the gateway issued, which limits a proof made in advance (say,
// by code that got hold of the key for a moment) to the nonce's lifetime. Stateless and the same on
// every instance: a nonce is the number of the period it was issued in and an HMAC of that number
// under a key every instance derives from the shared client-secret hashing key. The current and the
// previous period's nonces are accepted, so a nonce lives one to two periods; nothing is stored.
import { timingSafeEqual } from 'node:crypto';
import { hmacOfCurrentKey } from './hmac-sha256.js';

const MAC_BYTES = 16;
const NONCE = /^([0-9a-z]{1,10})\.([A-Za-z0-9_-]{22})$/;

export class DpopNonces {
  private readonly hmac = hmacOfCurrentKey(() => this.key());

  constructor(
    /** The shared key (ClientSecretHasher.derivedKey), read at each use: it may be loaded or replaced after start. */
    private readonly key: () => Buffer,
    private readonly periodSeconds: number,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  private mac(period: number): Buffer {
    return this.hmac(`dpop-nonce:${period}`).subarray(0, MAC_BYTES);
  }

  private period(): number {
    return Math.floor(this.nowSeconds() / this.periodSeconds);
  }

  /** The nonce to hand out now (DPoP-Nonce). */
  current(): string {
    const period = this.period();
    return `${period.toString(36)}.${this.mac(period).toString('base64url')}`;
  }

  /** Whether a proof's nonce claim is one this gateway issued in this period or the one before. */
  accepts(nonce: string | undefined): boolean {
    const parts = nonce === undefined ? null : NONCE.exec(nonce);
    if (!parts) return false;
    const period = parseInt(parts[1]!, 36);
    const now = this.period();
    if (period !== now && period !== now - 1) return false;
    // As text: base64url's last character has spare bits, and only the canonical spelling is ours.
    return timingSafeEqual(Buffer.from(parts[2]!, 'ascii'), Buffer.from(this.mac(period).toString('base64url'), 'ascii'));
  }
}
