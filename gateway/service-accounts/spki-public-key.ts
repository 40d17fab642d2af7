// The PEM form of a public key: "-----BEGIN PUBLIC KEY-----" holding a DER SubjectPublicKeyInfo
// (RFC 5280 section 4.1), what `openssl pkey -pubout` and most libraries write. For Ed25519 (RFC
// 8410) that is exactly SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING { 0 unused bits, 32
// bytes } }: the parameters are absent, and nothing may follow any part.
import { DER_BIT_STRING, DER_OBJECT_IDENTIFIER, DER_SEQUENCE, DerError, DerReader, oidText } from './der-reader.js';
import { readPemBlock } from './pem-block.js';
import { PublicKeyError } from './public-key-errors.js';
import { canonicalEd25519Key, type SshEd25519Key } from './ssh-public-key.js';

/** 1.3.101.112, id-Ed25519, as DER content bytes. */
const ED25519_OID = Buffer.from([0x2b, 0x65, 0x70]);

const OTHER_ALGORITHMS: Record<string, string> = {
  '1.2.840.113549.1.1.1': 'an RSA',
  '1.2.840.10045.2.1': 'an EC (ECDSA)',
  '1.2.840.10040.4.1': 'a DSA',
  '1.3.101.110': 'an X25519',
  '1.3.101.111': 'an X448',
  '1.3.101.113': 'an Ed448',
};

const PEM_HINTS: Record<string, string> = {
  CERTIFICATE: 'is an X.509 certificate, not a public key; give its public key (openssl x509 -pubkey -noout -in FILE)',
  'RSA PUBLIC KEY': 'is an RSA public key; only Ed25519 keys are accepted',
};

function describeAlgorithm(oid: Buffer): string {
  const dotted = oidText(oid);
  const name = dotted === undefined ? undefined : OTHER_ALGORITHMS[dotted];
  if (name !== undefined) return `is ${name} public key; only Ed25519 keys are accepted`;
  return `is a public key for algorithm ${dotted ?? '(an unreadable OID)'}; only Ed25519 (1.3.101.112) is accepted`;
}

/** The 32 key bytes of a DER Ed25519 SubjectPublicKeyInfo; PublicKeyError saying what is wrong otherwise. */
export function ed25519KeyFromSpki(der: Buffer): Buffer {
  try {
    const outer = new DerReader(der);
    const info = outer.expect(DER_SEQUENCE, 'the SubjectPublicKeyInfo SEQUENCE');
    if (outer.remaining !== 0) throw new DerError(`${outer.remaining} bytes follow the SubjectPublicKeyInfo`);
    const fields = new DerReader(info);
    const algorithm = new DerReader(fields.expect(DER_SEQUENCE, 'the AlgorithmIdentifier SEQUENCE'));
    const oid = algorithm.expect(DER_OBJECT_IDENTIFIER, 'the algorithm OID');
    if (!oid.equals(ED25519_OID)) throw new PublicKeyError(describeAlgorithm(oid));
    if (algorithm.remaining !== 0) throw new DerError('the Ed25519 AlgorithmIdentifier has parameters, which RFC 8410 forbids');
    const key = fields.expect(DER_BIT_STRING, 'the subjectPublicKey BIT STRING');
    if (fields.remaining !== 0) throw new DerError(`${fields.remaining} bytes follow the subjectPublicKey`);
    if (key.length === 0 || key[0] !== 0) throw new DerError('the subjectPublicKey BIT STRING must start with 0 unused bits');
    if (key.length !== 33) throw new PublicKeyError(`holds ${key.length - 1} key bytes; an Ed25519 key has exactly 32`);
    return key.subarray(1);
  } catch (error) {
    if (error instanceof DerError) throw new PublicKeyError(`is not a valid DER SubjectPublicKeyInfo: ${error.message}`);
    throw error;
  }
}

/** "-----BEGIN PUBLIC KEY-----" ... as the stored form. Private-key blocks are refused before this is called. */
export function parsePemPublicKey(text: string): SshEd25519Key {
  const { label, der } = readPemBlock(text);
  if (label !== 'PUBLIC KEY') {
    throw new PublicKeyError(PEM_HINTS[label] ?? `is a PEM "${label}" block; expected "-----BEGIN PUBLIC KEY-----" (an Ed25519 SubjectPublicKeyInfo)`);
  }
  return canonicalEd25519Key(ed25519KeyFromSpki(der));
}
