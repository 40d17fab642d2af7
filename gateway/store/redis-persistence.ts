// Reads how a Redis server persists writes. CONFIG GET first; managed services often refuse CONFIG
// (renamed or ACL-denied), so INFO persistence next; if both are refused the answer is "unknown".
// A refusal is a server reply; anything else (timeout, connection lost) is the store being
// unavailable and is raised as such, so that the check is retried rather than reported unknown.
import { StoreUnavailableError, type PersistenceReport } from './types.js';

export interface CommandRunner {
  call(command: string, ...args: string[]): Promise<unknown>;
}

function isReply(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}

async function configValue(redis: CommandRunner, name: string): Promise<string | undefined> {
  const answer = (await redis.call('CONFIG', 'GET', name)) as Array<string | null> | undefined;
  const value = Array.isArray(answer) ? answer[1] : undefined;
  return value === undefined || value === null ? undefined : String(value);
}

export async function readPersistence(redis: CommandRunner): Promise<PersistenceReport> {
  let configRefusal: string;
  try {
    const [appendonly, appendfsync, save] = await Promise.all(['appendonly', 'appendfsync', 'save'].map((name) => configValue(redis, name)));
    return { source: 'config', appendonly: appendonly === undefined ? undefined : appendonly === 'yes', appendfsync, save };
  } catch (error) {
    if (!isReply(error)) throw new StoreUnavailableError(error);
    configRefusal = (error as Error).message;
  }
  try {
    const info = String(await redis.call('INFO', 'persistence'));
    const aof = /^aof_enabled:(\d)/m.exec(info)?.[1];
    return { source: 'info', appendonly: aof === undefined ? undefined : aof === '1', appendfsync: undefined, save: undefined };
  } catch (error) {
    if (!isReply(error)) throw new StoreUnavailableError(error);
    return {
      source: 'unknown',
      appendonly: undefined,
      appendfsync: undefined,
      save: undefined,
      refusal: `CONFIG: ${configRefusal}; INFO: ${(error as Error).message}`,
    };
  }
}
