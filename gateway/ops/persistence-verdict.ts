// Whether a Redis server keeps the credential state across a restart. Only the append-only file
// does: RDB snapshots lose every change since the last one, and a lost deletion is a credential
// that comes back to life, so snapshots alone count as not durable.
import type { PersistenceReport } from '../store/types.js';

export type PersistenceVerdict = { status: 'durable'; warning?: string } | { status: 'not_durable'; problem: string } | { status: 'unknown'; problem: string };

export function judgePersistence(report: PersistenceReport): PersistenceVerdict {
  if (report.appendonly === true) {
    if (report.appendfsync === 'no') {
      return {
        status: 'durable',
        warning:
          'Redis has appendonly yes but appendfsync no: the OS decides when writes reach the disk, so a crash can lose the last ~30 s of credential changes; use appendfsync everysec or always',
      };
    }
    return { status: 'durable' };
  }
  if (report.appendonly === false) {
    if (report.source === 'info')
      return {
        status: 'not_durable',
        problem:
          'Redis reports aof_enabled:0 (INFO persistence): without the append-only file, credential changes since the last snapshot are lost on a Redis restart',
      };
    if (report.save) {
      return {
        status: 'not_durable',
        problem: `Redis has appendonly no and only RDB snapshots (save "${report.save}"): a restart loses every credential change since the last snapshot, and a deleted credential can come back`,
      };
    }
    return {
      status: 'not_durable',
      problem:
        'Redis has appendonly no and save "": it keeps credentials in memory only, and a restart loses every client, service account, revocation and signing key',
    };
  }
  return { status: 'unknown', problem: `Redis persistence cannot be verified (${report.refusal ?? 'the server did not say'})` };
}
