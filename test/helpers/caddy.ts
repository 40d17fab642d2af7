// A real Caddy (Debian's) with a given site block, as an operator would run it: global options
// only for the test (no admin endpoint, no automatic HTTPS, HTTP/1.1 and h2c on the one port).
// Everything Caddy writes (its autosaved config, its data) stays in a temporary directory.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { freePort } from './gateway-process.js';
import { runServerProcess } from './server-process.js';

export const CADDY = process.env.CADDY_BINARY ?? '/usr/bin/caddy';

/**
 * Caddy serving the site block it is given for any Host on 127.0.0.1:<port> (the site address is
 * http://:<port>, bound to loopback only); resolves to its origin.
 */
export async function startCaddyWith(t: Test, siteBlock: (site: string) => string): Promise<{ url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-caddy-'));
  const port = await freePort();
  const file = join(dir, 'Caddyfile');
  const global = '{\n\tadmin off\n\tdefault_bind 127.0.0.1\n\tauto_https off\n\tservers {\n\t\tprotocols h1 h2c\n\t}\n}\n\n';
  writeFileSync(file, global + siteBlock(`http://:${port}`));
  const site = `http://127.0.0.1:${port}`;
  const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') };
  await runServerProcess(t, { command: CADDY, args: ['run', '--config', file, '--adapter', 'caddyfile'], env, stopSignal: 'SIGTERM', dir, url: site });
  return { url: site };
}
