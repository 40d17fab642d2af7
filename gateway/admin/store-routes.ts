// Admin API for the credential store itself: the repair that reconciles the list indexes and the id
// pointers with the records (gateway/store/index-repair.ts), for after a failover or an outage.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf, audit } from '../http/audit.js';
import type { CredentialStore, RepairReport } from '../store/types.js';
import { ADMIN_SECURITY } from './api-document.js';
import { adminErrors } from './schemas/error-body.js';
import { described } from '../http/schema-helpers.js';
import { StoreRepairSchema, type StoreRepairView } from './schemas/store.js';

export type { StoreRepairView } from './schemas/store.js';

export function storeRepairView(kind: string, report: RepairReport): StoreRepairView {
  const { clients: c, serviceAccounts: s } = report;
  return {
    store: kind,
    clients: { records: c.records, listed: c.listed, index_added: c.indexAdded, index_removed: c.indexRemoved },
    service_accounts: {
      records: s.records,
      listed: s.listed,
      index_added: s.indexAdded,
      index_removed: s.indexRemoved,
      pointers_added: s.pointersAdded,
      pointers_removed: s.pointersRemoved,
    },
    nodes_scanned: report.nodesScanned,
    duration_ms: report.durationMs,
  };
}

const NOTHING: RepairReport = {
  clients: { records: 0, listed: 0, indexAdded: 0, indexRemoved: 0 },
  serviceAccounts: { records: 0, listed: 0, indexAdded: 0, indexRemoved: 0, pointersAdded: 0, pointersRemoved: 0 },
  nodesScanned: 0,
  durationMs: 0,
};

export function registerStoreRoutes(parent: FastifyInstance, store: CredentialStore): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/admin/v1/store/repair',
    {
      schema: {
        summary: 'Reconcile the list indexes and id pointers with the records: every record that can verify is listed and found by its id afterwards.',
        description:
          "Scans every Redis master in bounded batches (Redis keeps serving), adds what a record lacks, and removes index entries and id pointers without a record once they have stayed so for two seconds (a create in flight is left alone); such an entry is voided in its record's slot first, so a create answered 503 that reaches Redis later writes nothing. Idempotent and safe while other instances serve or repair. Each gateway also runs it once at start. Audited as store.repaired.",
        tags: ['Operations'],
        security: ADMIN_SECURITY,
        response: { 200: described(StoreRepairSchema, 'What was found and changed.'), ...adminErrors() },
      },
    },
    async (request) => {
      const report = store.repairIndexes ? await store.repairIndexes() : NOTHING;
      const view = storeRepairView(store.kind, report);
      audit(request.log, 'store.repaired', { clients: view.clients, service_accounts: view.service_accounts, by: actorOf(request) });
      return view;
    },
  );
}
