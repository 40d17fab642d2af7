// A real nginx (Debian's) in front of gateway processes: a plain upstream block with keep-alive
// connections, as an operator would write it. Everything it writes stays in a temporary directory.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { freePort } from './gateway-process.js';
import { runServerProcess } from './server-process.js';

export const NGINX = process.env.NGINX_BINARY ?? '/usr/sbin/nginx';

export interface Nginx {
  url: string;
  /** nginx's error log so far (upstream errors it retried elsewhere show up here). */
  errorLog(): string;
}

/** nginx in front of gateway processes: one upstream block over their ports, with keep-alive. */
export function startNginx(t: Test, upstreamPorts: number[]): Promise<Nginx> {
  return startNginxWith(
    t,
    (port) => `  upstream gateways {
${upstreamPorts.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
`,
  );
}

/**
 * nginx with the given http-block configuration (upstreams and servers), which must listen on
 * 127.0.0.1 and the port it is given. The main file around it keeps every path nginx writes (pid,
 * logs, temporary bodies) in a temporary directory, removed at teardown.
 */
export async function startNginxWith(t: Test, httpBlock: (port: number) => string): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-nginx-'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${httpBlock(port)}
}
`,
  );
  const errorLog = () => {
    try {
      return readFileSync(join(dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const url = `http://127.0.0.1:${port}`;
  await runServerProcess(t, {
    command: NGINX,
    args: ['-e', join(dir, 'error.log'), '-p', dir, '-c', conf],
    stopSignal: 'SIGQUIT',
    dir,
    url,
    diagnostics: errorLog,
  });
  return { url, errorLog };
}
