// Shared values on Redis: a compare-and-set script that also publishes the change, and watches on
// the change channels (redis-channel-watcher.ts, its own connection).
import { COMPARE_AND_SET } from '../redis-scripts.js';
import type { SharedValues } from '../types.js';
import type { RedisStoreConnection } from './connection.js';

export class RedisSharedValues implements SharedValues {
  constructor(private readonly connection: RedisStoreConnection) {}

  async getMeta(name: string): Promise<string | null> {
    return this.connection.guard(() => this.connection.redis.get(this.connection.keys.meta(name)));
  }

  async compareAndSetMeta(name: string, expected: string | null, value: string): Promise<boolean> {
    const { redis, keys } = this.connection;
    const set = await this.connection.guard(() =>
      redis.eval(COMPARE_AND_SET, 1, keys.meta(name), expected === null ? '1' : '0', expected ?? '', value, keys.metaChannel(name)),
    );
    return set === 1;
  }

  watchMeta(name: string, onChange: () => void): () => void {
    return this.connection.watcher.watch(this.connection.keys.metaChannel(name), onChange);
  }
}
