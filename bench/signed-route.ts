// The signed banking route scenario; filled in once the signing library exists.
import type { LoadResult } from './load.js';

export async function benchSignedRoute(_options: { gatewayUrl: string; adminUrl: string; adminToken: string; load: { seconds: number; connections: number } }): Promise<LoadResult | undefined> {
  return undefined;
}
