// The README shows the core of each edge proxy's configuration; deploy/edge holds the whole file,
// which is what operators copy (and what the nginx test runs). Every line of a README snippet must
// be a line of its file, so the two cannot drift apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/gateway.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const normalized = (line: string) => line.trim().replace(/\s+/g, ' ');

function snippet(heading: string, language: string): string[] {
  const section = README.slice(README.indexOf(`\n### ${heading}\n`));
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section);
  if (!match) throw new Error(`README has no ${language} block under ### ${heading}`);
  return match[1]!.split('\n').map(normalized).filter(Boolean);
}

for (const [heading, language, file] of [
  ['nginx', 'nginx', 'deploy/edge/nginx.conf'],
  ['Envoy', 'yaml', 'deploy/edge/envoy.yaml'],
  ['Envoy over gRPC', 'yaml', 'deploy/edge/envoy-grpc.yaml'],
  ['Traefik', 'yaml', 'deploy/edge/traefik.yaml'],
  ['Caddy', 'caddy', 'deploy/edge/Caddyfile'],
] as const) {
  t.test(`the README's ${heading} snippet is taken from ${file}`, async (t) => {
    const lines = new Set(readFileSync(join(REPO_ROOT, file), 'utf8').split('\n').map(normalized));
    const shown = snippet(heading, language);
    t.ok(shown.length >= 8, `the snippet has substance (${shown.length} lines)`);
    t.same(
      shown.filter((line) => !lines.has(line)),
      [],
      `every line is in ${file}`,
    );
  });
}
