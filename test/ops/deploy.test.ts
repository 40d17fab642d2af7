// The deployment files cannot drift from the gateway: alert rules pass promtool, every metric the
// rules and the Grafana dashboard use is one the gateway exports, the Kubernetes manifests and the
// compose file name only settings the gateway reads and probe endpoints it serves, and the
// Dockerfile builds an image that holds what the gateway needs and starts it (see below).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, normalize, posix, relative } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { SETTING_ENV_NAMES, settingsFrom } from '../../gateway/config/settings.js';
import { authorizationClient } from '../../bench/grpc-authorization-client.js';
import { buildSources, type BuildSources } from '../helpers/build-sources.js';
import { docker, dockerCannotBuild } from '../helpers/docker.js';
import { dockerStages, landing, lintDockerfile, type DockerStage } from '../helpers/dockerfile.js';
import { freePort } from '../helpers/gateway-process.js';
import { startRuntimeStage } from '../helpers/runtime-stage.js';
import { REPO_ROOT, startTestGateway } from '../helpers/gateway.js';
import { uniquePrefix, deleteKeysWithPrefix, TEST_REDIS_URL } from '../helpers/redis.js';

const read = (path: string) => readFileSync(`${REPO_ROOT}${path}`, 'utf8');
const execFileAsync = promisify(execFile);

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
  for (const panel of dashboard.panels)
    t.ok(panel.targets.length > 0 && panel.targets.every((target) => target.expr.length > 0), `${panel.title}: has queries`);
  const exported = await exportedNames();
  const used = metricNames([...ruleExprs, ...dashboard.panels.flatMap((p) => p.targets.map((target) => target.expr))]);
  t.ok(used.size >= 10, `${used.size} metrics used`);
  for (const name of used) t.ok(exported.has(name), `${name} is exported by the gateway`);
});

t.test('Kubernetes manifests: known settings, real probe endpoints, a grace period longer than the drain', async (t) => {
  const docs = parseAllDocuments(read('deploy/kubernetes/gateway.yaml')).map((d) => d.toJS() as Record<string, any>);
  const deployment = docs.find((d) => d.kind === 'Deployment')!;
  t.ok(deployment, 'a Deployment');
  t.ok(
    docs.some((d) => d.kind === 'PodDisruptionBudget'),
    'a PodDisruptionBudget',
  );
  t.ok(
    docs.some((d) => d.kind === 'Service'),
    'a Service',
  );
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const env = Object.fromEntries((container.env as Array<{ name: string; value?: string }>).map((e) => [e.name, e.value]));
  for (const name of Object.keys(env)) t.ok(SETTING_ENV_NAMES.includes(name), `${name} is a setting the gateway reads`);
  const ports = Object.fromEntries((container.ports as Array<{ name: string; containerPort: number }>).map((p) => [p.name, p.containerPort]));
  const defaults = settingsFrom({});
  t.equal(ports.public, defaults.port, "the public port is the gateway's");
  t.equal(ports.admin, defaults.adminPort, "the admin port is the gateway's");
  t.equal(container.livenessProbe.httpGet.port, 'admin');
  t.equal(container.readinessProbe.httpGet.port, 'admin');
  const drain = Number(env.GATEWAY_SHUTDOWN_DRAIN_SECONDS);
  const upstreamSeconds = Number(env.GATEWAY_UPSTREAM_TIMEOUT_MS) / 1000;
  t.ok(
    pod.terminationGracePeriodSeconds > drain + upstreamSeconds,
    `grace ${pod.terminationGracePeriodSeconds} s > drain ${drain} s + longest request ${upstreamSeconds} s`,
  );
  for (const service of docs.filter((d) => d.kind === 'Service')) {
    for (const port of service.spec.ports) t.ok(port.targetPort in ports, `${service.metadata.name}: targets the named port ${port.targetPort}`);
    t.same(service.spec.selector, deployment.spec.selector.matchLabels);
  }
  t.match(container.image, /^[^:]+:(?!latest$)[\w.-]+$/, 'the image is pinned to a version');
  t.ok(container.readinessProbe.failureThreshold >= 2, 'one missed readiness probe does not take a pod out');
  t.equal(ports.decision, Number(env.GATEWAY_DECISION_PORT), 'the decision port is the one the gateway listens on');
  for (const cidr of env.GATEWAY_TRUSTED_PROXIES!.split(',')) {
    t.ok(Number(cidr.split('/')[1] ?? 32) >= 16, `trusted proxies ${cidr}: the edge's pods, not the whole pod network`);
  }
  const mount = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === env.GATEWAY_POLICIES_DIR);
  t.ok(
    pod.volumes.find((v: { name: string; configMap?: object }) => v.name === mount?.name && v.configMap),
    'the policies come from a ConfigMap',
  );
  t.ok(Number(env.GATEWAY_POLICIES_POLL_SECONDS) > 0, 'and are reloaded when it changes');
  // Only operators and monitoring reach the admin port; anyone the public one.
  const networkPolicy = docs.find((d) => d.kind === 'NetworkPolicy')!;
  t.same(networkPolicy.spec.podSelector.matchLabels, deployment.spec.selector.matchLabels, 'a NetworkPolicy selects the gateway');
  const rulesFor = (port: string) =>
    (networkPolicy.spec.ingress as Array<{ ports: Array<{ port: string }>; from?: unknown[] }>).filter((r) => r.ports.some((p) => p.port === port));
  t.ok(
    rulesFor('admin').length > 0 && rulesFor('admin').every((rule) => Array.isArray(rule.from) && rule.from.length > 0),
    'the admin port only from named peers',
  );
  t.ok(
    rulesFor('public').some((rule) => rule.from === undefined),
    'the public port from anyone',
  );
  // The probe paths answer on a real gateway, reached by IP as the kubelet does.
  const tg = await startTestGateway(t, { store: 'embedded', config: { admin_hostnames: env.GATEWAY_ADMIN_HOSTNAMES!.split(',') } });
  for (const probe of [container.livenessProbe, container.readinessProbe]) {
    const response = await tg.gateway.adminApp.inject({ method: 'GET', url: probe.httpGet.path, headers: { host: `10.1.2.3:${ports.admin}` } });
    t.equal(response.statusCode, 200, `${probe.httpGet.path} answers the kubelet`);
  }
});

// Each manifest against the Kubernetes API's own schema (types, required fields, enums), as
// kubeconform would check it: kubernetes-models ships the OpenAPI schemas with a validator.
const KUBERNETES_MODELS: Readonly<Record<string, string>> = {
  v1: 'kubernetes-models/v1',
  'apps/v1': 'kubernetes-models/apps/v1',
  'networking.k8s.io/v1': 'kubernetes-models/networking.k8s.io/v1',
  'policy/v1': 'kubernetes-models/policy/v1',
};

async function kubernetesSchemaErrors(manifest: Record<string, any>): Promise<string | undefined> {
  const module = KUBERNETES_MODELS[manifest.apiVersion as string];
  if (module === undefined) return `no schema known for apiVersion ${String(manifest.apiVersion)}`;
  const Model = ((await import(module)) as Record<string, new (data: object) => { validate(): void }>)[manifest.kind as string];
  if (Model === undefined) return `no kind ${String(manifest.kind)} in ${String(manifest.apiVersion)}`;
  try {
    new Model(manifest).validate();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

t.test("Kubernetes manifests pass the Kubernetes API's schema", async (t) => {
  const docs = parseAllDocuments(read('deploy/kubernetes/gateway.yaml')).map((d) => d.toJS() as Record<string, any>);
  for (const manifest of docs) t.equal(await kubernetesSchemaErrors(manifest), undefined, `${manifest.kind} ${manifest.metadata?.name}`);
  // The check can fail: a wrongly typed field is named.
  const broken = structuredClone(docs.find((d) => d.kind === 'Deployment')!);
  broken.spec.replicas = 'two';
  t.match(await kubernetesSchemaErrors(broken), /spec\/replicas must be integer/);
});

t.test('docker-compose: two gateways behind nginx, known settings, Redis with AOF', async (t) => {
  const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; command?: string[]; volumes?: string[] }>;
  };
  const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway-'));
  t.equal(gateways.length, 2, 'two gateway instances');
  for (const [name, service] of gateways)
    for (const variable of Object.keys(service.environment ?? {})) t.ok(SETTING_ENV_NAMES.includes(variable), `${name}: ${variable} is a setting`);
  t.same(compose.services.redis!.command!.slice(1, 3), ['--appendonly', 'yes']);
  for (const [name, service] of gateways)
    t.match(service.environment?.GATEWAY_ADMIN_TOKEN, /^\$\{GATEWAY_ADMIN_TOKEN:\?/, `${name}: the admin token is required, with no known default`);
  const nginx = read('deploy/nginx/load-balancer.conf');
  for (const [name] of gateways) t.match(nginx, new RegExp(`server ${name}:8080`), `nginx balances over ${name}`);
  t.ok(
    compose.services['load-balancer']!.volumes!.some((v) => v.startsWith('./deploy/nginx/load-balancer.conf:')),
    'nginx uses the checked configuration',
  );
  // Where Docker Compose is installed, its own reading of the file (no daemon needed).
  const hasCompose = await execFileAsync('docker', ['compose', 'version'], { timeout: 10_000 }).then(
    () => true,
    () => false,
  );
  if (!hasCompose) t.comment('docker compose is not installed here: the checks above stand in for `docker compose config`');
  else {
    const { stdout } = await execFileAsync('docker', ['compose', '--file', `${REPO_ROOT}docker-compose.yml`, 'config', '--quiet'], {
      timeout: 60_000,
      env: { ...process.env, GATEWAY_ADMIN_TOKEN: 'x'.repeat(32) },
    });
    t.equal(stdout, '', 'docker compose config accepts the file');
  }
});

// The Dockerfile: read by a real parser and linter everywhere, and built and run where Docker can
// build it (a daemon, and its base image here or reachable). Building it anywhere else needs no
// interpreter of ours: each fact the image depends on is checked where it is decided (the build's
// sources, the lock file, the compiled entry point), and the runtime stage's own files, laid out as
// the image lays them out, start a ready gateway with the image's command and environment.
const stages = dockerStages(read('Dockerfile'));
const [buildStage, runtimeStage] = stages as [DockerStage, DockerStage];
const packageJson = JSON.parse(read('package.json')) as PackageManifest;
type LockEntry = PackageManifest & { dev?: boolean; hasInstallScript?: boolean; os?: string[]; cpu?: string[]; libc?: string[] };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
/** The npm workspaces (the TypeScript client package): npm ci links each from its directory. */
const workspaces = (packageJson.workspaces ?? []).map((dir) => ({ dir, files: (JSON.parse(read(`${dir}/package.json`)) as { files?: string[] }).files ?? [] }));
let sources: BuildSources | undefined;
/** tsconfig.build.json's files and the packages they load, read once. */
const build = () => (sources ??= buildSources(REPO_ROOT, 'tsconfig.build.json'));
// Started now, as it takes a few seconds, and awaited by its test.
const productionTreeCheck = execFileAsync('npm', ['ls', '--omit=dev', '--all'], { cwd: REPO_ROOT, timeout: 60_000 }).then(
  () => 0,
  (error: { code?: number }) => error.code ?? 1,
);
const ignored = read('.dockerignore')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

interface PackageManifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  engines?: Record<string, string>;
  scripts?: Record<string, string>;
  workspaces?: string[];
}

/** Each source the stage copies from the build context exists there, is not .dockerignored, and keeps its path. */
function checkContextCopies(t: Test, stage: DockerStage): void {
  for (const copy of stage.copies.filter((c) => c.from === undefined)) {
    for (const source of copy.sources) {
      t.ok(existsSync(join(REPO_ROOT, source)), `${stage.name}: ${source} exists`);
      t.notOk(
        ignored.some((pattern) => source === pattern || source.startsWith(`${pattern}/`)),
        `${stage.name}: ${source} is in the build context`,
      );
      t.equal(landing(copy, source), normalize(source), `${stage.name}: ${source} keeps its path`);
    }
  }
}

/** The stage's `npm ci`, after the copy of package.json and package-lock.json. */
function npmCi(t: Test, stage: DockerStage): string {
  const install = stage.runs.find((run) => /^npm ci\b/.test(run.command));
  t.ok(install, `${stage.name}: installs with npm ci, from the lock file`);
  const manifests = stage.copies.find((copy) => copy.sources.includes('package.json') && copy.sources.includes('package-lock.json'));
  t.ok(manifests && manifests.index < install!.index, `${stage.name}: package.json and package-lock.json are copied before npm ci`);
  for (const { dir } of workspaces) {
    const linked = stage.copies.find((copy) => copy.from === undefined && copy.sources.some((source) => source === dir || source === `${dir}/package.json`));
    t.ok(linked && linked.index < install!.index, `${stage.name}: the workspace ${dir} (its package.json) is copied before npm ci, which links it`);
  }
  return install!.command;
}

/** The lowest major version of a ">=N.M" engines range. */
const engineMajor = (range: string) => Number(/^>=\s*(\d+)/.exec(range)?.[1]);

t.test('the Dockerfile passes the linter, with a build and a runtime stage on a Node image engines accepts', async (t) => {
  t.same(lintDockerfile(read('Dockerfile')), [], 'no findings from dockerfile-utils');
  t.same(
    stages.map((s) => s.name),
    ['build', 'runtime'],
  );
  t.equal(runtimeStage.image, buildStage.image, 'both stages on one image');
  const [name, tag] = runtimeStage.image.split(':') as [string, string | undefined];
  t.equal(name, 'node');
  const imageMajor = Number(/^(\d+)(-|$)/.exec(tag ?? '')?.[1]);
  t.ok(imageMajor >= engineMajor(packageJson.engines!.node!), `node:${tag}: the newest Node ${imageMajor} satisfies engines ${packageJson.engines!.node}`);
  t.ok(
    ignored.every((pattern) => !/[*?[\]!]/.test(pattern)),
    '.dockerignore lists plain paths (what this test matches)',
  );
});

t.test('the build stage compiles the production build (no bench, no tests) from the sources it copies', async (t) => {
  t.ok(
    buildStage.copies.every((copy) => copy.from === undefined),
    'it copies from the build context only',
  );
  checkContextCopies(t, buildStage);
  const install = buildStage.runs.find((run) => /^npm ci\b/.test(run.command))!;
  npmCi(t, buildStage);
  for (const { dir } of workspaces) {
    t.ok(
      buildStage.copies.some((copy) => copy.sources.includes(dir) && copy.index < install.index),
      `the workspace ${dir} is copied whole before npm ci, whose prepare script builds it`,
    );
  }
  const compile = buildStage.runs.find((run) => /\bnode_modules\/typescript\/bin\/tsc -p tsconfig\.build\.json$/.test(run.command));
  t.ok(compile, 'it compiles tsconfig.build.json with the installed TypeScript');
  t.ok(
    buildStage.copies.every((copy) => copy.index < compile!.index),
    'after every copy',
  );
  const copied = (file: string) => buildStage.copies.some((copy) => copy.sources.some((source) => file === source || file.startsWith(`${source}/`)));
  const extended = (JSON.parse(read('tsconfig.build.json')) as { extends?: string }).extends;
  for (const config of ['tsconfig.build.json', ...(extended ? [normalize(extended)] : [])]) t.ok(copied(config), `${config} is copied`);
  const { files } = build();
  t.ok(files.includes('gateway/main.ts') && files.length > 100, `${files.length} files compiled`);
  const missing = files.filter((file) => !copied(file));
  t.same(missing, [], 'every file the compiler reads is copied into the build stage');
  t.same(
    files.filter((file) => /^(bench|test)\//.test(file)),
    [],
    'the bench and the tests are no part of the build',
  );
});

/**
 * Production packages whose install script the image may skip, each with why: the script does
 * nothing the gateway needs.
 */
const INSTALL_SCRIPTS_NOT_NEEDED: Readonly<Record<string, { script: string; why: string }>> = {
  // Through @grpc/proto-loader (the gRPC decision listener).
  'node_modules/protobufjs': {
    script: 'node scripts/postinstall',
    why: "scripts/postinstall.js only prints a warning when the depending package's version range of protobufjs uses another scheme",
  },
};

t.test("the runtime stage: the compiled gateway, production dependencies only, a non-root user, the gateway's ports", async (t) => {
  checkContextCopies(t, runtimeStage);
  const install = npmCi(t, runtimeStage);
  t.match(install, /--omit=dev\b/, 'npm ci leaves out the devDependencies');
  t.notMatch(install, /--omit[= ]optional|--no-optional/, 'and keeps the optional ones (sodium-native)');
  const fromBuild = runtimeStage.copies.filter((copy) => copy.from !== undefined);
  const { options } = build();
  const outDir = relative(options.rootDir!, options.outDir!);
  const built = [outDir, ...workspaces.flatMap(({ dir, files }) => files.map((file) => posix.join(dir, file)))];
  t.same(
    fromBuild.map((copy) => [copy.from, copy.sources, landing(copy, copy.sources[0]!)]),
    built.map((path) => ['build', [posix.join(buildStage.workdir!, path)], path]),
    "only the compiler's output and the workspaces' built files come from the build stage, at the same paths",
  );
  if (/--ignore-scripts\b/.test(install)) {
    const skipped = Object.entries(lock.packages)
      .filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev && entry.hasInstallScript)
      .map(([path]) => path)
      .filter((path) => !(path in INSTALL_SCRIPTS_NOT_NEEDED));
    t.same(skipped, [], "npm ci --ignore-scripts skips no production package's install script (only the workspaces' prepare, whose output is copied in)");
    for (const [path, { script }] of Object.entries(INSTALL_SCRIPTS_NOT_NEEDED)) {
      const scripts = (JSON.parse(read(`${path}/package.json`)) as { scripts?: Record<string, string> }).scripts ?? {};
      t.same(
        [scripts.preinstall, scripts.install, scripts.postinstall].filter(Boolean),
        [script],
        `${path}'s install script is still the one judged not needed (a new one is judged again)`,
      );
    }
  }
  t.equal(runtimeStage.workdir, buildStage.workdir, 'in the same WORKDIR');
  t.notOk(
    runtimeStage.copies.some((copy) => copy.sources.some((source) => source.includes('node_modules'))),
    'no node_modules copied in: npm ci installs them',
  );
  t.equal(runtimeStage.env.NODE_ENV, 'production');
  for (const name of Object.keys(runtimeStage.env).filter((n) => n !== 'NODE_ENV'))
    t.ok(SETTING_ENV_NAMES.includes(name), `ENV ${name} is a setting the gateway reads`);
  const user = runtimeStage.user;
  t.ok(user && !/^(root|0)(:|$)/.test(user.name), `the container runs as ${user?.name}, not root`);
  const defaults = settingsFrom({});
  t.same(runtimeStage.exposed, [defaults.port, defaults.adminPort], 'EXPOSE names the public and the admin port');
  t.equal(runtimeStage.entrypoint, undefined, 'no ENTRYPOINT: the CMD runs as written');
  const cmd = runtimeStage.cmd!.argv;
  t.equal(cmd.join(' '), packageJson.scripts!.start, 'the image runs exactly what npm start runs');
  const entry = cmd.at(-1)!;
  const entrySource = entry.slice(outDir.length + 1).replace(/\.js$/, '.ts');
  t.ok(entry.startsWith(`${outDir}/`) && build().files.includes(entrySource), `${entry} is the compiler's output for ${entrySource}`);
  t.match(
    runtimeStage.healthcheck?.join(' '),
    `http://127.0.0.1:${defaults.adminPort}/healthz`,
    "the health check asks the admin port's /healthz: a gateway whose Redis is down is alive, and a restart would not help",
  );
});

t.test('what npm ci --omit=dev installs from the lock file is what the compiled gateway loads', async (t) => {
  const root = lock.packages['']!;
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'engines'] as const) {
    t.same(root[field] ?? {}, packageJson[field] ?? {}, `package-lock.json's ${field} are package.json's (npm ci refuses a lock out of step)`);
  }
  const production = { ...packageJson.dependencies, ...packageJson.optionalDependencies };
  const { packages } = build();
  for (const [name, uses] of packages) {
    t.ok(name in production, `${name} (loaded by ${uses[0]!.file}) is a production dependency`);
    t.notOk(lock.packages[`node_modules/${name}`]?.dev, `${name} is installed by npm ci --omit=dev`);
  }
  for (const name of Object.keys(production)) t.ok(packages.has(name), `${name} is loaded at run time: no production dependency goes unused`);
  for (const name of Object.keys(packageJson.optionalDependencies ?? {})) {
    t.same(
      packages.get(name)!.map((use) => use.how),
      ['require'],
      `${name} (optional) is loaded by a require that can fail, never by an import`,
    );
  }
  t.equal(await productionTreeCheck, 0, 'npm ls --omit=dev: the installed production tree is complete and valid');
});

/** The environment a test gives the image: loopback addresses, its own ports and Redis keys, stub upstreams. */
async function testEnvironment(prefix: string) {
  return {
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_ADMIN_HOST: '127.0.0.1',
    GATEWAY_PORT: String(await freePort()),
    GATEWAY_ADMIN_PORT: String(await freePort()),
    // The gRPC decision listener loads proto/ at start: the image must hold it.
    GATEWAY_DECISION_GRPC_PORT: String(await freePort()),
    GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32',
    REDIS_URL: TEST_REDIS_URL,
    GATEWAY_REDIS_KEY_PREFIX: prefix,
    // The test Redis keeps nothing on disk; a production deployment's Redis must.
    GATEWAY_REQUIRE_REDIS_PERSISTENCE: 'false',
    GATEWAY_ADMIN_TOKEN: 'a'.repeat(40),
    PUBLIC_UPSTREAM: 'http://127.0.0.1:9',
    BANKING_UPSTREAM: 'http://127.0.0.1:9',
  };
}

// Started now, as a gateway process takes seconds to start, and checked by its test below.
const runtimePrefix = uniquePrefix('gw-docker');
const runtimeEnv = testEnvironment(runtimePrefix);
const runtimeGateway = runtimeEnv.then((env) => startRuntimeStage(REPO_ROOT, runtimeStage, build().files, { ...env, GATEWAY_SHUTDOWN_DRAIN_SECONDS: '0' }));
t.teardown(async () => {
  await runtimeGateway.then(
    (gateway) => gateway.dispose(),
    () => undefined,
  );
  await deleteKeysWithPrefix(runtimePrefix);
});

/** Runs the health check's command with the admin port it asks replaced; resolves to its exit code. */
async function healthcheck(adminPort: string): Promise<number> {
  const [command, ...args] = runtimeStage.healthcheck!.map((arg) => arg.replace(`:${settingsFrom({}).adminPort}/`, `:${adminPort}/`));
  return execFileAsync(command!, args, { timeout: 10_000 }).then(
    () => 0,
    (error: { code?: number }) => error.code ?? 1,
  );
}

t.test("the runtime stage's files, command and environment start a ready gateway, which its health check sees", async (t) => {
  const gateway = await runtimeGateway;
  const adminPort = (await runtimeEnv).GATEWAY_ADMIN_PORT;
  await gateway.started;
  t.match(gateway.output(), /gateway started/, `the runtime stage starts with its CMD: ${gateway.output().slice(-500)}`);
  const ready = await fetch(`http://127.0.0.1:${adminPort}/readyz`).then(
    (r) => r.status,
    () => 0,
  );
  t.equal(ready, 200, 'and becomes ready');
  t.equal(await healthcheck(adminPort), 0, 'the HEALTHCHECK command passes');
  const grpc = authorizationClient(`127.0.0.1:${(await runtimeEnv).GATEWAY_DECISION_GRPC_PORT}`);
  t.teardown(() => grpc.close());
  t.equal(await grpc.health(), 'SERVING', 'the gRPC decision listener answers: the stage holds proto/');
  gateway.child.kill('SIGTERM');
  await gateway.exited;
  t.not(await healthcheck(adminPort), 0, 'and fails once the gateway is gone');
});

// Where Docker can build, the image itself: built, inspected and run.
const cannotBuild = await dockerCannotBuild(stages.map((stage) => stage.image));
if (cannotBuild !== undefined) {
  t.comment(`The image is not built here: ${cannotBuild}. The checks above stand in for the build.`);
} else {
  t.test('the image builds, holds production dependencies only, runs as its user and passes its health check', { timeout: 1_500_000 }, async (t) => {
    t.setTimeout(1_500_000);
    const tag = `access-gateway-deploy-test:${process.pid}`;
    await docker(['build', '--tag', tag, REPO_ROOT], 1_200_000);
    t.teardown(() =>
      docker(['image', 'rm', '--force', tag], 60_000).then(
        () => undefined,
        () => undefined,
      ),
    );
    const config = JSON.parse(await docker(['image', 'inspect', '--format', '{{json .Config}}', tag], 30_000)) as {
      User: string;
      Cmd: string[];
      Healthcheck?: { Test: string[] };
    };
    t.equal(config.User, runtimeStage.user!.name, "the image's user");
    t.same(config.Cmd, runtimeStage.cmd!.argv, "the image's command");
    t.match(config.Healthcheck?.Test.join(' '), /\/healthz/, "the image's health check");
    t.not((await docker(['run', '--rm', '--entrypoint', 'id', tag, '-u'], 60_000)).trim(), '0', 'its processes do not run as root');
    const installed = new Set(
      (
        await docker(
          [
            'run',
            '--rm',
            '--entrypoint',
            'node',
            tag,
            '-e',
            'const { readdirSync } = require("fs"); for (const d of readdirSync("node_modules")) for (const n of d.startsWith("@") ? readdirSync("node_modules/" + d).map((s) => d + "/" + s) : [d]) console.log(n)',
          ],
          60_000,
        )
      )
        .split('\n')
        .filter(Boolean),
    );
    const topLevel = Object.entries(lock.packages).filter(([path]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path));
    t.same(
      topLevel.filter(([path, entry]) => entry.dev && installed.has(path.slice('node_modules/'.length))).map(([path]) => path),
      [],
      'no development-only package is installed',
    );
    const forEveryPlatform = (entry: LockEntry) => !entry.os && !entry.cpu && !entry.libc;
    t.same(
      topLevel.filter(([path, entry]) => !entry.dev && forEveryPlatform(entry) && !installed.has(path.slice('node_modules/'.length))).map(([path]) => path),
      [],
      'every production package is',
    );
    const prefix = uniquePrefix('gw-image');
    t.teardown(() => deleteKeysWithPrefix(prefix));
    const env = await testEnvironment(prefix);
    const adminPort = env.GATEWAY_ADMIN_PORT;
    // The host's network, so that the container reaches the test Redis on loopback.
    const container = (
      await docker(['run', '--detach', '--network', 'host', ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]), tag], 60_000)
    ).trim();
    t.teardown(() =>
      docker(['rm', '--force', container], 60_000).then(
        () => undefined,
        () => undefined,
      ),
    );
    let status = 0;
    for (let i = 0; i < 600 && status !== 200; i++) {
      status = await fetch(`http://127.0.0.1:${adminPort}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.equal(status, 200, 'the container becomes ready');
    const check = runtimeStage.healthcheck!.map((arg) => arg.replace(`:${settingsFrom({}).adminPort}/`, `:${adminPort}/`));
    t.equal(
      await docker(['exec', container, ...check], 30_000).then(
        () => 0,
        () => 1,
      ),
      0,
      'the HEALTHCHECK command passes inside it',
    );
  });
}
