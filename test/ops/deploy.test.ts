// The deployment files cannot drift from the gateway: alert rules pass promtool, every metric the
// rules and the Grafana dashboard use is one the gateway exports, the Kubernetes manifests and the
// compose file name only settings the gateway reads and probe endpoints it serves, and the
// Dockerfile's own commands build and start the gateway on a clean copy of the sources.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { SETTING_ENV_NAMES, settingsFrom } from '../../gateway/config/settings.js';
import { freePort } from '../helpers/gateway-process.js';
import { REPO_ROOT, startTestGateway } from '../helpers/gateway.js';
import { uniquePrefix, deleteKeysWithPrefix, TEST_REDIS_URL } from '../helpers/redis.js';

const read = (path: string) => readFileSync(`${REPO_ROOT}${path}`, 'utf8');

/** Metric names in PromQL expressions (functions, keywords and label names left out). */
function metricNames(expressions: string[]): Set<string> {
  const names = new Set<string>();
  for (const expr of expressions) {
    const withoutLabels = expr.replace(/\{[^}]*\}/g, '').replace(/"[^"]*"/g, '');
    for (const match of withoutLabels.matchAll(/\b(gateway_[a-z0-9_]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+)\b/g)) names.add(match[1]!);
  }
  return names;
}

/** Names the gateway exports (from the TYPE lines, so counters not yet incremented count too). */
async function exportedNames(): Promise<Set<string>> {
  const tg = await startTestGateway(t, { store: 'embedded' });
  const body = (await tg.gateway.adminApp.inject({ method: 'GET', url: '/metrics' })).body;
  const names = new Set<string>();
  for (const [, name, type] of body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

t.test('alert rules pass promtool and use only exported metrics; so does the dashboard', async (t) => {
  const check = execFileSync('promtool', ['check', 'rules', `${REPO_ROOT}deploy/prometheus/alerts.yml`], { encoding: 'utf8' });
  t.match(check, /SUCCESS: \d+ rules found/);
  const rules = parseYaml(read('deploy/prometheus/alerts.yml')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> };
  const ruleExprs = rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
  const dashboard = JSON.parse(read('deploy/grafana/access-gateway.json')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
  t.ok(dashboard.panels.length >= 8, 'the dashboard has its panels');
  for (const panel of dashboard.panels) t.ok(panel.targets.length > 0 && panel.targets.every((target) => target.expr.length > 0), `${panel.title}: has queries`);
  const exported = await exportedNames();
  const used = metricNames([...ruleExprs, ...dashboard.panels.flatMap((p) => p.targets.map((target) => target.expr))]);
  t.ok(used.size >= 10, `${used.size} metrics used`);
  for (const name of used) t.ok(exported.has(name), `${name} is exported by the gateway`);
});

t.test('Kubernetes manifests: known settings, real probe endpoints, a grace period longer than the drain', async (t) => {
  const docs = parseAllDocuments(read('deploy/kubernetes/gateway.yaml')).map((d) => d.toJS() as Record<string, any>);
  const deployment = docs.find((d) => d.kind === 'Deployment')!;
  t.ok(deployment, 'a Deployment');
  t.ok(docs.some((d) => d.kind === 'PodDisruptionBudget'), 'a PodDisruptionBudget');
  t.ok(docs.some((d) => d.kind === 'Service'), 'a Service');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const env = Object.fromEntries((container.env as Array<{ name: string; value?: string }>).map((e) => [e.name, e.value]));
  for (const name of Object.keys(env)) t.ok(SETTING_ENV_NAMES.includes(name), `${name} is a setting the gateway reads`);
  const ports = Object.fromEntries((container.ports as Array<{ name: string; containerPort: number }>).map((p) => [p.name, p.containerPort]));
  const defaults = settingsFrom({});
  t.equal(ports.public, defaults.port, 'the public port is the gateway\'s');
  t.equal(ports.admin, defaults.adminPort, 'the admin port is the gateway\'s');
  t.equal(container.livenessProbe.httpGet.port, 'admin');
  t.equal(container.readinessProbe.httpGet.port, 'admin');
  const drain = Number(env.GATEWAY_SHUTDOWN_DRAIN_SECONDS);
  const upstreamSeconds = Number(env.GATEWAY_UPSTREAM_TIMEOUT_MS) / 1000;
  t.ok(pod.terminationGracePeriodSeconds > drain + upstreamSeconds, `grace ${pod.terminationGracePeriodSeconds} s > drain ${drain} s + longest request ${upstreamSeconds} s`);
  for (const service of docs.filter((d) => d.kind === 'Service')) {
    for (const port of service.spec.ports) t.ok(port.targetPort in ports, `${service.metadata.name}: targets the named port ${port.targetPort}`);
    t.same(service.spec.selector, deployment.spec.selector.matchLabels);
  }
  // The probe paths answer on a real gateway, reached by IP as the kubelet does.
  const tg = await startTestGateway(t, { store: 'embedded', config: { admin_hostnames: env.GATEWAY_ADMIN_HOSTNAMES!.split(',') } });
  for (const probe of [container.livenessProbe, container.readinessProbe]) {
    const response = await tg.gateway.adminApp.inject({ method: 'GET', url: probe.httpGet.path, headers: { host: `10.1.2.3:${ports.admin}` } });
    t.equal(response.statusCode, 200, `${probe.httpGet.path} answers the kubelet`);
  }
});

t.test('docker-compose: two gateways behind nginx, known settings, Redis with AOF', async (t) => {
  const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as { services: Record<string, { environment?: Record<string, string>; command?: string[]; volumes?: string[] }> };
  const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway-'));
  t.equal(gateways.length, 2, 'two gateway instances');
  for (const [name, service] of gateways) for (const variable of Object.keys(service.environment ?? {})) t.ok(SETTING_ENV_NAMES.includes(variable), `${name}: ${variable} is a setting`);
  t.same(compose.services.redis!.command!.slice(1, 3), ['--appendonly', 'yes']);
  const nginx = read('deploy/nginx/load-balancer.conf');
  for (const [name] of gateways) t.match(nginx, new RegExp(`server ${name}:8080`), `nginx balances over ${name}`);
  t.ok(compose.services['load-balancer']!.volumes!.some((v) => v.startsWith('./deploy/nginx/load-balancer.conf:')), 'nginx uses the checked configuration');
});

/** Dockerfile instructions by stage: FROM, WORKDIR, COPY [--from=stage] src... dest, RUN, ENV, CMD. */
function dockerStages(text: string) {
  const stages: Array<{ name: string; steps: Array<{ op: string; args: string }> }> = [];
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [op, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op === 'FROM') stages.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${stages.length}`, steps: [] });
    else stages.at(-1)!.steps.push({ op: op!, args });
  }
  return stages;
}

t.test('the Dockerfile\'s commands build and start the gateway from a clean copy of the sources', { timeout: 600_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'gw-docker-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const stages = dockerStages(read('Dockerfile'));
  t.same(stages.map((s) => s.name), ['build', 'runtime']);
  const env: Record<string, string> = {};
  const workdirs: Record<string, string> = {};
  let cmd: string[] = [];
  for (const stage of stages) {
    const dir = join(work, stage.name);
    mkdirSync(dir);
    for (const { op, args } of stage.steps) {
      if (op === 'WORKDIR') {
        workdirs[stage.name] = args.endsWith('/') ? args : `${args}/`;
      } else if (op === 'COPY') {
        const from = /^--from=(\S+)\s+/.exec(args);
        const parts = args.replace(/^--from=\S+\s+/, '').split(/\s+/);
        const dest = parts.pop()!;
        for (const src of parts) {
          // The stage's directory stands for its WORKDIR: /app/dist of the build stage is build/dist.
          const source = from ? join(work, from[1]!, src.replace(workdirs[from[1]!] ?? '', '')) : join(REPO_ROOT, src);
          const target = dest.endsWith('/') || parts.length > 1 ? join(dir, dest, src.split('/').pop()!) : join(dir, dest);
          cpSync(source, target, { recursive: true });
        }
      } else if (op === 'RUN') {
        try {
          execFileSync('sh', ['-c', args], { cwd: dir, stdio: 'pipe', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
        } catch (error) {
          const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
          throw new Error(`${stage.name}: RUN ${args} failed:\n${String(stdout ?? '').slice(-2000)}${String(stderr ?? '').slice(-2000)}`, { cause: error });
        }
        t.pass(`${stage.name}: RUN ${args}`);
      } else if (op === 'ENV') {
        for (const [, name, value] of args.matchAll(/(\w+)=(\S+)/g)) env[name!] = value!;
      } else if (op === 'CMD') {
        cmd = JSON.parse(args) as string[];
      }
    }
  }
  const startScript = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  t.equal(cmd.join(' '), startScript, 'the image runs exactly what npm start runs');
  const prefix = uniquePrefix('gw-docker');
  t.teardown(() => deleteKeysWithPrefix(prefix));
  const port = await freePort();
  const adminPort = await freePort();
  const child = spawn(process.execPath, cmd.slice(1), {
    cwd: join(work, 'runtime'),
    env: {
      PATH: process.env.PATH,
      ...env,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_ADMIN_HOST: '127.0.0.1',
      GATEWAY_PORT: String(port),
      GATEWAY_ADMIN_PORT: String(adminPort),
      REDIS_URL: TEST_REDIS_URL,
      GATEWAY_REDIS_KEY_PREFIX: prefix,
      // The test Redis keeps nothing on disk; a production deployment's Redis must.
      GATEWAY_REQUIRE_REDIS_PERSISTENCE: 'false',
      GATEWAY_ADMIN_TOKEN: 'a'.repeat(40),
      PUBLIC_UPSTREAM: 'http://127.0.0.1:9',
      BANKING_UPSTREAM: 'http://127.0.0.1:9',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (let i = 0; i < 150 && !output.includes('gateway started') && child.exitCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  t.match(output, /gateway started/, `the runtime stage starts with its CMD: ${output.slice(-500)}`);
  const ready = await fetch(`http://127.0.0.1:${adminPort}/readyz`);
  t.equal(ready.status, 200, 'and becomes ready');
});
