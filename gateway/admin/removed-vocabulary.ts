// A reload may remove scopes or permissions that credentials still hold. The gateway keeps serving:
// no route names them any more, so nothing they granted is reachable, and a token request for a
// removed scope is refused as for any undeclared one. It says which credentials hold them, so that
// an operator can re-create those credentials with names the policy declares.
import type { FastifyBaseLogger } from 'fastify';
import type { PolicyHolder } from '../policy/route-table.js';
import { removedNames } from '../policy/vocabulary.js';
import type { CredentialStore, Page, PageRequest } from '../store/types.js';

/** Credentials read per store request while looking for holders. */
const PAGE_SIZE = 500;
/** Ids named in one log line; the line also counts them all. */
export const LISTED_HOLDERS = 20;

interface Holders {
  /** The first LISTED_HOLDERS ids, in the store's order. */
  ids: string[];
  count: number;
}

/** For each name, who holds it: every credential, a page at a time (the store never lists them all at once). */
async function holdersOf<T>(
  names: readonly string[],
  list: (page: PageRequest) => Promise<Page<T>>,
  held: (item: T) => readonly string[],
  idOf: (item: T) => string,
): Promise<Map<string, Holders>> {
  const holders = new Map(names.map((name) => [name, { ids: [] as string[], count: 0 }]));
  let cursor: string | undefined;
  do {
    const page = await list({ limit: PAGE_SIZE, cursor });
    for (const item of page.items) {
      for (const name of held(item)) {
        const found = holders.get(name);
        if (!found) continue;
        found.count++;
        if (found.ids.length < LISTED_HOLDERS) found.ids.push(idOf(item));
      }
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return holders;
}

async function report(log: FastifyBaseLogger, kind: 'scope' | 'permission', holders: Promise<Map<string, Holders>>): Promise<void> {
  const credentials = kind === 'scope' ? 'clients' : 'service_accounts';
  try {
    for (const [name, { ids, count }] of await holders) {
      if (count === 0) continue;
      log.warn(
        { [kind]: name, [credentials]: ids, holders: count },
        `the reloaded policy no longer declares the ${kind} ${JSON.stringify(name)}, which ${kind === 'scope' ? 'OAuth clients' : 'service accounts'} hold (${credentials}: at most ${LISTED_HOLDERS} of their ids; holders: how many): no route requires it any more`,
      );
    }
  } catch (error) {
    log.warn({ err: error, kind }, `could not list the credentials holding the ${kind}s the reloaded policy removed`);
  }
}

/** After each reload that removed names, logs which credentials hold them (ids, at most LISTED_HOLDERS a name, and a count). */
export function reportRemovedVocabulary(policy: PolicyHolder, store: CredentialStore, log: FastifyBaseLogger): void {
  policy.onReplaced((previous, next) => {
    const removed = removedNames(previous.vocabulary, next.vocabulary);
    if (removed.scopes.length > 0)
      void report(
        log,
        'scope',
        holdersOf(
          removed.scopes,
          (page) => store.listClients(page),
          (client) => client.scopes,
          (client) => client.clientId,
        ),
      );
    if (removed.permissions.length > 0)
      void report(
        log,
        'permission',
        holdersOf(
          removed.permissions,
          (page) => store.listServiceAccounts(page),
          (account) => account.permissions,
          (account) => account.id,
        ),
      );
  });
}
