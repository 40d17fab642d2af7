// The answer of the store repair (POST /admin/v1/store/repair): what it found and what it changed.
import { Type, type Static } from 'typebox';

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const StoreRepairSchema = Type.Object({
  store: Type.String({ description: 'redis, or embedded (which keeps no separate index: nothing to repair, every count 0).' }),
  clients: Type.Object({
    records: count('Client records found by scanning every master.'),
    listed: count('Entries of the client list index.'),
    index_added: count('Records that were missing from the list, added.'),
    index_removed: count('Entries without a record (a create that never completed), removed.'),
  }),
  service_accounts: Type.Object({
    records: count('Service account records found by scanning every master.'),
    listed: count('Entries of the service account list index.'),
    index_added: count('Records that were missing from the list, added.'),
    index_removed: count('Entries without a record, removed.'),
    pointers_added: count('Id pointers (the id -> Access ID lookup) restored or made for older accounts.'),
    pointers_removed: count('Id pointers without a record, removed.'),
  }),
  nodes_scanned: count('Redis servers scanned: every master of a Cluster, else the one server.'),
  duration_ms: count('How long the repair took.'),
});

export type StoreRepairView = Static<typeof StoreRepairSchema>;
