// The nginx reference: proxy_pass to the same upstream with keep-alive connections to it, as one
// process (no master) so that its CPU time is the worker's. Only when nginx is installed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopProcess, waitForPort } from './processes.js';

const NGINX = '/usr/sbin/nginx';

export function nginxInstalled(): boolean {
  return existsSync(NGINX);
}

function config(dir: string, upstreamPort: number, port: number): string {
  // Every path under the temp dir: nginx must not touch /var or /run of this machine.
  return `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream bench_upstream {
    server 127.0.0.1:${upstreamPort};
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://bench_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
}

export interface Nginx {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startNginx(upstreamPort: number): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-nginx-'));
  const port = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), config(dir, upstreamPort, port));
  // -e: the error log before the configuration is read (the default path may not be writable).
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: 'ignore' });
  const stop = async () => {
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port);
  } catch (error) {
    const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
    await stop();
    throw new Error(`nginx did not start: ${(error as Error).message}\n${log}`, { cause: error });
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop };
}
