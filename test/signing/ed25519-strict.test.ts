// Strict Ed25519 verification (gateway/signing/ed25519.ts): the published edge cases, RFC 8032's
// vectors, every small-order public key, the forgeries such keys allow under plain node:crypto, and
// S malleability. Facts about each vector (point orders, canonical or not) are re-derived with the
// BigInt reference in test/helpers/ed25519-reference.ts rather than taken on trust.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { ED25519_EQUATIONS, ed25519PublicKeyProblem, verifyEd25519 } from '../../gateway/signing/ed25519.js';
import {
  BASE_POINT,
  decodePoint,
  encodePoint,
  L,
  littleEndian,
  multiply,
  p,
  pointOrder,
  toLittleEndian,
  verifiesCofactorless,
} from '../helpers/ed25519-reference.js';
import { holds } from '../helpers/property.js';

const hex = (s: string) => Buffer.from(s, 'hex');

/** node:crypto (OpenSSL) alone, as the gateway verified before strictness. */
function nodeVerify(message: Uint8Array, publicKey: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
  return verify(null, message, key, signature);
}

type Order = 'small' | 'mixed' | 'prime' | 'non-canonical small';

interface EdgeCase {
  msg: string;
  pbk: string;
  sig: string;
  a: Order;
  r: Order;
  s: 'zero' | 'below L' | 'at least L';
  /** [S]B = R + [k]A with k hashed over the bytes as sent (what a lenient cofactorless verifier checks). */
  equationAsSent: boolean;
  strict: boolean;
  why: string;
}

// The 12 cases of "Taming the many EdDSAs" (Chalkias, Garillot, Nikolaenko, SSR 2020), from
// github.com/novifinancial/ed25519-speccheck, cases.txt. Its results.md lists LibSodium as
// accepting only case 3, and OpenSSL 3.0 (so node:crypto) as accepting cases 0-3 and 11.
const SPECCHECK: EdgeCase[] = [
  {
    msg: '8c93255d71dcab10e8f379c26200f3c7bd5f09d9bc3068d3ef4edeb4853022b6',
    pbk: 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
    sig: 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a0000000000000000000000000000000000000000000000000000000000000000',
    a: 'small',
    r: 'small',
    s: 'zero',
    equationAsSent: true,
    strict: false,
    why: 'S = 0 with small-order A and R (R = -A): a signature made without any key; refused for small-order A and R',
  },
  {
    msg: '9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79',
    pbk: 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
    sig: 'f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04',
    a: 'small',
    r: 'mixed',
    s: 'below L',
    equationAsSent: true,
    strict: false,
    why: 'small-order A with a mixed-order R: the equation holds, but a small-order key is refused',
  },
  {
    msg: 'aebf3f2601a0c8c5d39cc7d8911642f740b78168218da8471772b35f9d35b9ab',
    pbk: 'f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43',
    sig: 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa8c4bd45aecaca5b24fb97bc10ac27ac8751a7dfe1baff8b953ec9f5833ca260e',
    a: 'mixed',
    r: 'small',
    s: 'below L',
    equationAsSent: true,
    strict: false,
    why: 'mixed-order A with a small-order R: the equation holds, but a small-order R is refused',
  },
  {
    msg: '9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79',
    pbk: 'cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d',
    sig: '9046a64750444938de19f227bb80485e92b83fdb4b6506c160484c016cc1852f87909e14428a7a1d62e9f22f3d3ad7802db02eb2e688b6c52fcd6648a98bd009',
    a: 'mixed',
    r: 'mixed',
    s: 'below L',
    equationAsSent: true,
    strict: true,
    why: 'mixed-order A and R, canonical, neither of small order, and the cofactorless equation holds: accepted (as by libsodium)',
  },
  {
    msg: 'e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c',
    pbk: 'cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d',
    sig: '160a1cb0dc9c0258cd0a7d23e94d8fa878bcb1925f2c64246b2dee1796bed5125ec6bc982a269b723e0668e540911a9a6a58921d6925e434ab10aa7940551a09',
    a: 'mixed',
    r: 'mixed',
    s: 'below L',
    equationAsSent: false,
    strict: false,
    why: 'mixed-order A and R that satisfy only the cofactored equation: the cofactorless check refuses it',
  },
  {
    msg: 'e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c',
    pbk: 'cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d',
    sig: '21122a84e0b5fca4052f5b1235c80a537878b38f3142356b2c2384ebad4668b7e40bc836dac0f71076f9abe3a53f9c03c1ceeeddb658d0030494ace586687405',
    a: 'mixed',
    r: 'prime',
    s: 'below L',
    equationAsSent: false,
    strict: false,
    why: 'mixed-order A, prime-order R, passing only a cofactored check that pre-reduces [8]k: the cofactorless check refuses it',
  },
  {
    msg: '85e241a07d148b41e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec40',
    pbk: '442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623',
    sig: 'e96f66be976d82e60150baecff9906684aebb1ef181f67a7189ac78ea23b6c0e547f7690a0e2ddcd04d87dbc3490dc19b3b3052f7ff0538cb68afb369ba3a514',
    a: 'prime',
    r: 'prime',
    s: 'at least L',
    equationAsSent: true,
    strict: false,
    why: 'S ≥ L (a valid S plus L): the equation holds, but S is not canonical',
  },
  {
    msg: '85e241a07d148b41e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec40',
    pbk: '442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623',
    sig: '8ce5b96c8f26d0ab6c47958c9e68b937104cd36e13c33566acd2fe8d38aa19427e71f98a473474f2f13f06f97c20d58cc3f54b8bd0d272f42b695dd7e89a8c22',
    a: 'prime',
    r: 'prime',
    s: 'at least L',
    equationAsSent: true,
    strict: false,
    why: 'S ≫ L (high bits set, valid after reduction): S is not canonical',
  },
  {
    msg: '9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41',
    pbk: 'f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43',
    sig: 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff03be9678ac102edcd92b0210bb34d7428d12ffc5df5f37e359941266a4e35f0f',
    a: 'mixed',
    r: 'non-canonical small',
    s: 'below L',
    equationAsSent: false,
    strict: false,
    why: 'R = (0, -1) encoded with the sign bit set (valid if R is re-encoded before hashing): non-canonical, small-order R',
  },
  {
    msg: '9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41',
    pbk: 'f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43',
    sig: 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffca8c5b64cd208982aa38d4936621a4775aa233aa0505711d8fdcfdaa943d4908',
    a: 'mixed',
    r: 'non-canonical small',
    s: 'below L',
    equationAsSent: true,
    strict: false,
    why: 'the same non-canonical R, valid with R hashed as sent: non-canonical, small-order R',
  },
  {
    msg: 'e96b7021eb39c1a163b6da4e3093dcd3f21387da4cc4572be588fafae23c155b',
    pbk: 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
    sig: 'a9d55260f765261eb9b84e106f665e00b867287a761990d7135963ee0a7d59dca5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04',
    a: 'non-canonical small',
    r: 'mixed',
    s: 'below L',
    equationAsSent: false,
    strict: false,
    why: 'A = (0, -1) encoded with the sign bit set (valid if A is re-encoded before hashing): non-canonical, small-order A',
  },
  {
    msg: '39a591f5321bbe07fd5a23dc2f39d025d74526615746727ceefd6e82ae65c06f',
    pbk: 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
    sig: 'a9d55260f765261eb9b84e106f665e00b867287a761990d7135963ee0a7d59dca5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04',
    a: 'non-canonical small',
    r: 'mixed',
    s: 'below L',
    equationAsSent: true,
    strict: false,
    why: 'the same non-canonical A, valid with A hashed as sent (node:crypto accepts it): non-canonical, small-order A',
  },
];

function orderOf(bytes: Uint8Array): Order | 'not a point' {
  const decoded = decodePoint(bytes);
  if (!decoded) return 'not a point';
  const order = pointOrder(decoded.point);
  if (decoded.canonical) return order;
  return order === 'small' ? 'non-canonical small' : (`non-canonical ${order}` as Order);
}

t.test('the 12 edge cases of ed25519-speccheck: only case 3 verifies', async (t) => {
  t.equal(SPECCHECK.length, 12);
  for (const [i, c] of SPECCHECK.entries()) {
    const message = hex(c.msg);
    const publicKey = hex(c.pbk);
    const signature = hex(c.sig);
    const s = littleEndian(signature.subarray(32));
    t.equal(orderOf(publicKey), c.a, `case ${i}: A is ${c.a}`);
    t.equal(orderOf(signature.subarray(0, 32)), c.r, `case ${i}: R is ${c.r}`);
    t.equal(s === 0n ? 'zero' : s < L ? 'below L' : 'at least L', c.s, `case ${i}: S is ${c.s}`);
    t.equal(verifiesCofactorless(message, publicKey, signature), c.equationAsSent, `case ${i}: the equation as sent ${c.equationAsSent ? 'holds' : 'fails'}`);
    for (const [name, equation] of Object.entries(ED25519_EQUATIONS)) {
      t.equal(verifyEd25519(message, signature, publicKey, equation), c.strict, `case ${i} with ${name}'s equation: ${c.why}`);
    }
  }
});

t.test('the gateway verifies with libsodium (sodium-native, an optional dependency, is installed here)', async (t) => {
  t.type(ED25519_EQUATIONS.libsodium, 'function');
});

t.test('node:crypto alone accepts speccheck cases 0, 1, 2 and 11: the strict checks are what refuse them', async (t) => {
  for (const i of [0, 1, 2, 11]) {
    const c = SPECCHECK[i]!;
    t.equal(nodeVerify(hex(c.msg), hex(c.pbk), hex(c.sig)), true, `case ${i} under plain node:crypto`);
    t.equal(verifyEd25519(hex(c.msg), hex(c.sig), hex(c.pbk)), false, `case ${i} under the strict verifier`);
  }
});

// RFC 8032 section 7.1: TEST 1, 2, 3 and SHA(abc) (secret key, public key, message, signature).
const RFC8032 = [
  [
    'TEST 1',
    '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    '',
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  ],
  [
    'TEST 2',
    '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    '72',
    '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  ],
  [
    'TEST 3',
    'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    'af82',
    '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  ],
  [
    'TEST SHA(abc)',
    '833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42',
    'ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf',
    'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    'dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704',
  ],
] as const;

t.test('RFC 8032 section 7.1 vectors verify, and their keys are usable', async (t) => {
  for (const [name, secret, publicHex, messageHex, signatureHex] of RFC8032) {
    const publicKey = hex(publicHex);
    const message = hex(messageHex);
    const signature = hex(signatureHex);
    const privateKey = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: hex(secret).toString('base64url'), x: publicKey.toString('base64url') },
      format: 'jwk',
    });
    t.same(sign(null, message, privateKey), signature, `${name}: node signs the published signature`);
    t.equal(ed25519PublicKeyProblem(publicKey), undefined, `${name}: a usable key`);
    const tampered = Buffer.from(signature);
    tampered[0]! ^= 1;
    for (const [by, equation] of Object.entries(ED25519_EQUATIONS)) {
      t.equal(verifyEd25519(message, signature, publicKey, equation), true, `${name} with ${by}: raw key`);
      t.equal(verifyEd25519(message, signature, createPublicKey(privateKey), equation), true, `${name} with ${by}: KeyObject`);
      t.equal(verifyEd25519(message, tampered, publicKey, equation), false, `${name} with ${by}: a changed signature fails`);
    }
  }
});

// curve25519-dalek's EIGHT_TORSION, as listed in ed25519-speccheck src/main.rs: [i]P for a generator P.
const EIGHT_TORSION = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  '0000000000000000000000000000000000000000000000000000000000000080',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  '0000000000000000000000000000000000000000000000000000000000000000',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
];
// The other encodings of the same points: x = 0 with the sign bit set, and y + p for y < 19.
const NON_CANONICAL_SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000080', // identity, sign bit set
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // (0, -1), sign bit set
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p: order 4
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // y = p, other x: order 4
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p + 1: identity
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // y = p + 1, sign bit set: identity
];

t.test('every encoding of every small-order point is refused as a public key', async (t) => {
  for (const encoding of [...EIGHT_TORSION, ...NON_CANONICAL_SMALL_ORDER]) {
    const raw = hex(encoding);
    const decoded = decodePoint(raw)!;
    t.ok(decoded && pointOrder(decoded.point) === 'small', `${encoding} is a small-order point`);
    const problem = ed25519PublicKeyProblem(raw);
    if (decoded.canonical) t.match(problem, /^it is (the identity point|a point of small order [248]), for which signatures can be forged/, encoding);
    else t.match(problem, /^its encoding is not canonical/, encoding);
  }
  t.equal(ed25519PublicKeyProblem(hex(EIGHT_TORSION[0]!)), 'it is the identity point, for which signatures can be forged without any private key');
  t.equal(ed25519PublicKeyProblem(hex(EIGHT_TORSION[4]!)), 'it is a point of small order 2, for which signatures can be forged without any private key');
  t.equal(ed25519PublicKeyProblem(hex(EIGHT_TORSION[6]!)), 'it is a point of small order 4, for which signatures can be forged without any private key');
  t.equal(ed25519PublicKeyProblem(hex(EIGHT_TORSION[1]!)), 'it is a point of small order 8, for which signatures can be forged without any private key');
  t.equal(ed25519PublicKeyProblem(hex(NON_CANONICAL_SMALL_ORDER[0]!)), 'its encoding is not canonical (x = 0 with the sign bit set)');
  t.equal(ed25519PublicKeyProblem(hex(NON_CANONICAL_SMALL_ORDER[2]!)), 'its encoding is not canonical (y is not reduced modulo 2^255 - 19)');
  t.equal(ed25519PublicKeyProblem(Buffer.alloc(31, 1)), 'it is 31 bytes, not 32');
  t.equal(ed25519PublicKeyProblem(toLittleEndian(2n)), 'it is not a point on the Ed25519 curve', 'y = 2 has no x');
});

t.test('all 19 unreduced y (p … 2^255 - 1), either sign, are refused as non-canonical', async (t) => {
  for (let y = p; y < 2n ** 255n; y++) {
    for (const sign of [0, 0x80]) {
      const raw = toLittleEndian(y);
      raw[31]! |= sign;
      t.match(ed25519PublicKeyProblem(raw), /^its encoding is not canonical \(y is not reduced/, `y = p + ${y - p}, sign ${sign >> 7}`);
    }
  }
});

const IDENTITY = hex(EIGHT_TORSION[0]!);
const BASE_POINT_ENCODING = '5866666666666666666666666666666666666666666666666666666666666666';
const FORGERIES: [string, Buffer][] = [
  ['R = B, S = 1', Buffer.concat([hex(BASE_POINT_ENCODING), toLittleEndian(1n)])],
  ['R = identity, S = 0', Buffer.concat([IDENTITY, Buffer.alloc(32)])],
];

t.test('the forgeries a small-order key allows verify under node:crypto for any message, never under the strict verifier', async (t) => {
  t.same(encodePoint(BASE_POINT), hex(BASE_POINT_ENCODING), 'R is the base point');
  holds(
    t,
    fc.property(fc.uint8Array({ maxLength: 200 }), (message) => {
      for (const [, signature] of FORGERIES) {
        if (!nodeVerify(message, IDENTITY, signature)) return false;
        if (verifyEd25519(message, signature, IDENTITY)) return false;
        for (const key of [...EIGHT_TORSION, ...NON_CANONICAL_SMALL_ORDER]) if (verifyEd25519(message, signature, hex(key))) return false;
      }
      return true;
    }),
    100,
  );
  const base = 'POST /v1/transfers';
  for (const [name, signature] of FORGERIES) {
    t.equal(nodeVerify(Buffer.from(base), IDENTITY, signature), true, `${name} under plain node:crypto`);
    t.equal(verifyEd25519(base, signature, IDENTITY), false, `${name} under the strict verifier`);
  }
});

t.test('S malleability: S + L, S = L and S with high bits are refused', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const message = 'GET /v1/balance';
  const signature = sign(null, Buffer.from(message), privateKey);
  t.equal(verifyEd25519(message, signature, raw), true, 'the original verifies');
  const s = littleEndian(signature.subarray(32));
  const withS = (value: bigint) => Buffer.concat([signature.subarray(0, 32), toLittleEndian(value)]);
  t.equal(verifyEd25519(message, withS(s + L), raw), false, 'S + L (the same point equation)');
  t.equal(verifyEd25519(message, withS(L), raw), false, 'S = L');
  t.equal(verifyEd25519(message, withS(L - 1n), raw), false, 'S = L - 1 is canonical but wrong');
  t.equal(verifyEd25519(message, withS(s + 8n * L), raw), false, 'S + 8L');
  t.ok(s + L < 2n ** 256n, 'S + L still fits in 32 bytes');
  t.equal(verifiesCofactorless(Buffer.from(message), raw, withS(s + L)), true, 'the reference equation holds for S + L: only the S < L rule refuses it');
});

t.test('genuine keys and signatures: strict verification agrees with node:crypto', async (t) => {
  const keys = Array.from({ length: 8 }, () => generateKeyPairSync('ed25519'));
  holds(
    t,
    fc.property(fc.integer({ min: 0, max: keys.length - 1 }), fc.string({ maxLength: 300 }), fc.nat(511), (index, message, bit) => {
      const { privateKey, publicKey } = keys[index]!;
      const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
      const signature = sign(null, Buffer.from(message), privateKey);
      if (ed25519PublicKeyProblem(raw) !== undefined) return false;
      if (!verifyEd25519(message, signature, raw) || !verifyEd25519(message, signature, publicKey) || !verifyEd25519(message, signature, privateKey))
        return false;
      const flipped = Buffer.from(signature);
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      return verifyEd25519(message, flipped, raw) === false && verifyEd25519(`${message}.`, signature, raw) === false;
    }),
    300,
  );
});

t.test('wrong shapes and wrong key types are refused, not thrown', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const signature = sign(null, Buffer.from('m'), privateKey);
  t.equal(verifyEd25519('m', signature.subarray(0, 63), raw), false, '63-byte signature');
  t.equal(verifyEd25519('m', Buffer.concat([signature, Buffer.alloc(1)]), raw), false, '65-byte signature');
  t.equal(verifyEd25519('m', signature, raw.subarray(0, 31)), false, '31-byte key');
  t.equal(verifyEd25519('m', signature, toLittleEndian(2n)), false, 'a key that is not a curve point');
  t.equal(verifyEd25519('m', signature, generateKeyPairSync('x25519').publicKey), false, 'an X25519 KeyObject');
  t.equal(verifyEd25519('m', signature, generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey), false, 'a P-256 KeyObject');
});

// Encodings near the interesting values: small y, y near p, the small-order y values, random bytes.
const interestingEncoding = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc.tuple(fc.bigInt({ min: 0n, max: 40n }), fc.boolean()).map(([y, sign]) => withSign(toLittleEndian(y), sign)),
  fc.tuple(fc.bigInt({ min: p - 40n, max: 2n ** 255n - 1n }), fc.boolean()).map(([y, sign]) => withSign(toLittleEndian(y), sign)),
  fc.tuple(fc.constantFrom(...EIGHT_TORSION), fc.nat(255), fc.integer({ min: 0, max: 31 })).map(([encoding, delta, at]) => {
    const bytes = hex(encoding);
    bytes[at] = (bytes[at]! + (delta % 3)) & 0xff;
    return new Uint8Array(bytes);
  }),
);

function withSign(bytes: Buffer, sign: boolean): Uint8Array {
  if (sign) bytes[31]! |= 0x80;
  return new Uint8Array(bytes);
}

t.test('ed25519PublicKeyProblem agrees with the BigInt reference on arbitrary encodings', async (t) => {
  holds(
    t,
    fc.property(interestingEncoding, (raw) => {
      const problem = ed25519PublicKeyProblem(raw);
      const decoded = decodePoint(raw);
      const yReduced = (littleEndian(raw) & ((1n << 255n) - 1n)) < p;
      if (!yReduced) return /^its encoding is not canonical/.test(problem ?? '');
      if (!decoded) return problem === 'it is not a point on the Ed25519 curve';
      if (!decoded.canonical) return problem === 'its encoding is not canonical (x = 0 with the sign bit set)';
      const small = multiply(8n, decoded.point);
      if (small[0] === 0n && small[1] === 1n) return /^it is (the identity point|a point of small order)/.test(problem ?? '');
      return problem === undefined;
    }),
    1000,
  );
});
