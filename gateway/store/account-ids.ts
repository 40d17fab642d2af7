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

const TAIL_DIGITS = 4;
const TAIL_VALUES = 16 ** TAIL_DIGITS;
const SLOT_MASK = SLOT_COUNT - 1;

/** True when the id's pointer key and the Access ID's record key share a Cluster slot. */
export function sharesSlot(id: string, accessId: string): boolean {
  return crc16(id) % SLOT_COUNT === crc16(accessId) % SLOT_COUNT;
}

/**
 * The 4-hex-digit tails grouped by the low 14 bits of their CRC (a slot's worth): tails[offsets[v]
 * .. offsets[v + 1]) are those whose CRC ends in v. About four per value; made on first use.
 */
let tailTable: { offsets: Uint32Array; tails: Uint16Array } | undefined;

function tailsBySlotBits(): { offsets: Uint32Array; tails: Uint16Array } {
  if (tailTable) return tailTable;
  const bits = new Uint16Array(TAIL_VALUES);
  const offsets = new Uint32Array(SLOT_COUNT + 1);
  for (let tail = 0; tail < TAIL_VALUES; tail++) {
    bits[tail] = crc16(tail.toString(16).padStart(TAIL_DIGITS, '0')) & SLOT_MASK;
    offsets[bits[tail]! + 1]!++;
  }
  for (let v = 0; v < SLOT_COUNT; v++) offsets[v + 1]! += offsets[v]!;
  const next = offsets.slice(0, SLOT_COUNT);
  const tails = new Uint16Array(TAIL_VALUES);
  for (let tail = 0; tail < TAIL_VALUES; tail++) tails[next[bits[tail]!]!++] = tail;
  tailTable = { offsets, tails };
  return tailTable;
}

/**
 * A random id in the slot of the Access ID: 16 random hex digits, then a 4-digit tail that lands
 * the whole in the slot. The CRC is linear (no initial value, no final xor), so crc(stem + tail) =
 * crc(stem followed by 4 zero bytes) xor crc(tail), and the tails that fit are looked up rather than
 * tried. A stem for which no tail fits (about 2 %) is drawn again.
 */
export function serviceAccountIdFor(accessId: string, random: (size: number) => Buffer = randomBytes): string {
  const target = crc16(accessId) & SLOT_MASK;
  const { offsets, tails } = tailsBySlotBits();
  for (let attempt = 0; attempt < 64; attempt++) {
    const stem = `sa_${random(8).toString('hex')}`;
    let shifted = crc16(stem);
    for (let i = 0; i < TAIL_DIGITS; i++) shifted = crc16Step(shifted, 0);
    const wanted = (shifted & SLOT_MASK) ^ target;
    const count = offsets[wanted + 1]! - offsets[wanted]!;
    if (count === 0) continue;
    const tail = tails[offsets[wanted]! + (random(2).readUInt16BE(0) % count)]!;
    return stem + tail.toString(16).padStart(TAIL_DIGITS, '0');
  }
  throw new Error('no service account id in the slot of the Access ID');
}
