import type { Settings } from '../config/settings.js';
import { EmbeddedCredentialStore } from './embedded-store.js';
import { RedisCredentialStore } from './redis-store.js';
import type { CredentialStore } from './types.js';

/** Opens the store the settings name: Redis when REDIS_URL is set, else the embedded store. */
export async function openStore(settings: Pick<Settings, 'redisUrl' | 'redisKeyPrefix' | 'embeddedStorePath'>): Promise<CredentialStore> {
  if (!settings.redisUrl) return new EmbeddedCredentialStore(settings.embeddedStorePath);
  const store = new RedisCredentialStore(settings.redisUrl, settings.redisKeyPrefix);
  try {
    await store.connect();
  } catch (error) {
    // Stop the background reconnection of a store nobody will use.
    await store.close();
    throw error;
  }
  return store;
}
