// gatewayctl store repair: reconciles the credential store's list indexes and id pointers with its
// records (POST /admin/v1/store/repair), after a failover or an outage left a record unlisted.
import { adminConnection, adminRequest } from '../admin-client.js';
import { ADMIN_OPTIONS, type Command } from '../command.js';
import { printJson, printLine, printTable } from '../output.js';
import type { StoreRepairView } from '../../admin/store-routes.js';

export const storeCommands: Command[] = [
  {
    group: 'store',
    name: 'repair',
    summary: 'List every record that can verify again: add missing list entries and id pointers, remove those without a record.',
    usage: 'gatewayctl store repair [--json]',
    options: { ...ADMIN_OPTIONS },
    details:
      'Scans every Redis master in small batches while the gateway keeps serving; safe to run again, and while other instances run it. An entry without a record is removed only once it has stayed so for two seconds.',
    async run(values, _positionals, context) {
      const report = await adminRequest<StoreRepairView>(adminConnection(values, context.env), 'POST', '/admin/v1/store/repair');
      if (values.json) return printJson(context, report);
      const { clients: c, service_accounts: s } = report;
      printTable(
        context,
        [
          {
            kind: 'clients',
            records: String(c.records),
            listed: String(c.listed),
            added: String(c.index_added),
            removed: String(c.index_removed),
            pointers: '-',
          },
          {
            kind: 'service accounts',
            records: String(s.records),
            listed: String(s.listed),
            added: String(s.index_added),
            removed: String(s.index_removed),
            pointers: `+${s.pointers_added} -${s.pointers_removed}`,
          },
        ],
        ['kind', 'records', 'listed', 'added', 'removed', 'pointers'],
      );
      printLine(context, `Scanned ${report.nodes_scanned} Redis server(s) of the ${report.store} store in ${report.duration_ms} ms.`);
    },
  },
];
