// Kinds of setting values with a structure of their own: CIDR lists, dashboard users, host names,
// a worker count, key files. Each problem says what is wrong without echoing a secret.
import { availableParallelism } from 'node:os';
import { parseCidrList, type Cidr } from '../net/cidr.js';
import { readResponseSigningKey } from '../signing/response-signing-key.js';
import { readSecretKeyFile } from './secret-key-file.js';
import { integer, list, path, refuse, type Kind } from './setting-kinds.js';

export interface DashboardUser {
  readonly username: string;
  /** scrypt$N$r$p$salt$hash, as `gatewayctl hash-password` prints it. */
  readonly passwordHash: string;
}

export const cidrList: Kind<readonly Cidr[]> = {
  allowed: 'a list of CIDRs without host bits (10.0.0.0/8)',
  parse(raw, context) {
    const entries = list((entry) => entry, '').parse(raw, context);
    try {
      return parseCidrList([...entries]);
    } catch (error) {
      return refuse((error as Error).message);
    }
  },
};

/** "user:scrypt$..." entries (comma-separated in the environment, a list in YAML); no username twice. */
export const dashboardUsers: Kind<readonly DashboardUser[]> = {
  allowed: 'username:hash entries, hash from gatewayctl hash-password (a list in YAML)',
  parse(raw, context) {
    const users = list((entry) => {
      const colon = entry.indexOf(':');
      const username = entry.slice(0, colon);
      const passwordHash = entry.slice(colon + 1);
      if (colon < 1 || !/^[A-Za-z0-9._@-]{1,64}$/.test(username)) refuse('each entry must be username:hash with a username of letters, digits, . _ @ -');
      if (!/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/.test(passwordHash)) {
        refuse(`the hash for ${username} is not a scrypt hash as printed by gatewayctl hash-password`);
      }
      return { username, passwordHash };
    }, '').parse(raw, context);
    if (new Set(users.map((u) => u.username)).size !== users.length) refuse('a username appears twice');
    return users;
  },
};

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Host names (lower-cased), no port, no scheme. */
export const hostNames = list(
  (entry) => {
    const name = entry.toLowerCase();
    if (!HOST_NAME.test(name)) refuse(`${JSON.stringify(name)} is not a host name (no port, no scheme)`);
    return name;
  },
  'a list of host names (no port, no scheme)',
);

const WORKER_COUNT = integer(1, 256);

/** A count of processes, or `auto`: one per available core. */
export const workerCount: Kind<number> = {
  allowed: '1 to 256, or auto (one per core)',
  parse(raw, context) {
    if (typeof raw === 'string' && raw.trim().toLowerCase() === 'auto') return availableParallelism();
    return WORKER_COUNT.parse(raw, context);
  },
};

/** The response-signing key's PEM file (read now, so that a bad one stops the start); the path is kept. */
export const responseSigningKeyFile = path('a PEM file of an Ed25519 private key', (file) => {
  try {
    readResponseSigningKey(file);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
});

/** A file holding a shared secret key (read now, so that a bad one stops the start); the path is kept. */
export const secretKeyFile = path('a file of 32+ random bytes, hex or base64url', (file) => {
  try {
    readSecretKeyFile(file);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
});
