// The store contract against the embedded single-process store (in memory, and with a snapshot file).
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedCredentialStore } from '../../gateway/store/embedded-store.js';
import { credentialStoreContract } from './contract.js';

t.test('in memory', async (t) => {
  credentialStoreContract(t, async (t) => {
    const store = new EmbeddedCredentialStore();
    t.teardown(() => store.close());
    return store;
  });
});

t.test('with a snapshot file', async (t) => {
  credentialStoreContract(t, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-store-'));
    const store = new EmbeddedCredentialStore(join(dir, 'store.json'));
    t.teardown(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return store;
  });
});
