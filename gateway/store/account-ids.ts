// The management id of a service account (`sa_` and 20 hex digits) is chosen so that it hashes to
// the same Redis Cluster slot as the account's Access ID. The store keeps the id -> Access ID
// pointer under the id (`sa-id:{<id>}`), so that pointer then lives in the slot of the record
// itself (`sa:{<Access ID>}`): one atomic step creates or deletes both, and a failover that
// loses or brings back the record does the same to its pointer. An account stays findable and
// deletable by its id whatever happened to the shared list index.
//
// What the id gives away: 14 bits of a CRC of the Access ID, which has 122 random bits (and is an
// identifier, not a secret: every request must also be signed; the hint shows its first 8 digits).
import { randomBytes } from 'node:crypto';
import { crc16, crc16Step, SLOT_COUNT } from './cluster-slot.js';

const TAIL_DIGITS = 5;
const TAIL_VALUES = 16 ** TAIL_DIGITS;
const HEX_DIGITS = [...'0123456789abcdef'].map((c) => c.charCodeAt(0));

/** True when the id's pointer key and the Access ID's record key share a Cluster slot. */
export function sharesSlot(id: string, accessId: string): boolean {
  return crc16(id) % SLOT_COUNT === crc16(accessId) % SLOT_COUNT;
}

/**
 * A random id in the slot of the Access ID: 15 random hex digits, then the first of the 16^5 tails
 * (from a random start) that lands in the slot. About 16384 tails are tried (a few milliseconds);
 * none landing is a chance of e^-64.
 */
export function serviceAccountIdFor(accessId: string, random: (size: number) => Buffer = randomBytes): string {
  const target = crc16(accessId) % SLOT_COUNT;
  const stem = `sa_${random(8).toString('hex').slice(0, 15)}`;
  const stemCrc = crc16(stem);
  const start = random(4).readUInt32BE(0) % TAIL_VALUES;
  for (let i = 0; i < TAIL_VALUES; i++) {
    const tail = (start + i) % TAIL_VALUES;
    // The tail's hex digits fed to the CRC directly: no string per candidate.
    let crc = stemCrc;
    for (let shift = (TAIL_DIGITS - 1) * 4; shift >= 0; shift -= 4) crc = crc16Step(crc, HEX_DIGITS[(tail >> shift) & 0xf]!);
    if (crc % SLOT_COUNT === target) return stem + tail.toString(16).padStart(TAIL_DIGITS, '0');
  }
  throw new Error('no service account id in the slot of the Access ID');
}
