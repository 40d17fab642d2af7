// Properties of the routed-upstream check, over any routes (as policy files give them) and any
// upstream settings: one problem per routed upstream without a URL and none for the others, each
// naming its variable, every file routing to it, its first few routes and a count of the rest.
import fc from 'fast-check';
import t from 'tap';
import { missingUpstreamUrls, type UpstreamUse } from '../../gateway/config/routed-upstreams.js';
import { upstreamVariable, type Upstreams } from '../../gateway/config/upstream-settings.js';
import { holds } from '../helpers/property.js';

const ROUTES_NAMED = 3;
// Few names, so routes share upstreams; the shipped two, and the one an object has on its prototype.
const upstreamName = fc.oneof(fc.constantFrom('public', 'banking', 'constructor', 'ledger'), fc.stringMatching(/^[a-z][a-z0-9-]{0,5}$/));

const scenario = fc
  .record({
    configured: fc.dictionary(upstreamName, fc.option(fc.constantFrom('http://a.internal', 'https://b.internal:8443'), { nil: undefined }), { maxKeys: 5 }),
    routed: fc.array(fc.record({ upstream: upstreamName, file: fc.constantFrom('a.yaml', 'b.yaml', 'c.yaml'), method: fc.constantFrom('GET', 'POST') }), {
      maxLength: 12,
    }),
    environment: fc.constantFrom('development' as const, 'production' as const),
  })
  .map(({ configured, routed, environment }) => {
    const upstreams: Upstreams = Object.fromEntries(Object.entries(configured).map(([name, url]) => [name, { url, timeoutMs: 30_000, connections: 0 }]));
    // Each route's path is its own (/r1/x is no part of /r10/x), so a named route is found by its text.
    const routes: UpstreamUse[] = routed.map((r, i) => ({ ...r, template: `/r${i}/x` }));
    return { upstreams, routes, environment };
  });

const hasUrl = (upstreams: Upstreams, name: string) => Object.hasOwn(upstreams, name) && upstreams[name]!.url !== undefined;
/** The routed upstreams without a URL, in the order routes first name them. */
const withoutUrl = (routes: readonly UpstreamUse[], upstreams: Upstreams) => [...new Set(routes.map((r) => r.upstream))].filter((name) => !hasUrl(upstreams, name));

t.test('one problem per routed upstream without a URL, in the order routes name them, and none for the others', async (t) => {
  holds(
    t,
    fc.property(scenario, ({ upstreams, routes, environment }) => {
      const problems = missingUpstreamUrls(routes, upstreams, environment);
      const expected = withoutUrl(routes, upstreams);
      if (problems.length !== expected.length) throw new Error(`${problems.length} problems for ${expected.join(', ')}`);
      problems.forEach((p, i) => {
        const name = expected[i]!;
        const setting = name === 'public' ? 'PUBLIC_UPSTREAM' : name === 'banking' ? 'BANKING_UPSTREAM' : upstreamVariable(name);
        if (p.setting !== setting) throw new Error(`${name}: setting ${p.setting}`);
        if (!p.problem.includes(`upstreams.${name} in the config file`)) throw new Error(`${name}: no config key in ${p.problem}`);
        if (setting !== upstreamVariable(name) && !p.problem.includes(upstreamVariable(name))) throw new Error(`${name}: no variable in ${p.problem}`);
        if (p.problem.startsWith('is required in production') !== (environment === 'production')) throw new Error(`${environment}: ${p.problem}`);
        const lack = Object.hasOwn(upstreams, name) ? `upstream ${name} has no URL;` : `upstream ${name} is not configured (configured: `;
        if (!p.problem.includes(lack)) throw new Error(`${name}: ${p.problem}`);
      });
    }),
    400,
  );
});

t.test('each problem names every file routing to the upstream, its first routes, and counts the rest', async (t) => {
  holds(
    t,
    fc.property(scenario, ({ upstreams, routes, environment }) => {
      const names = withoutUrl(routes, upstreams);
      missingUpstreamUrls(routes, upstreams, environment).forEach((p, i) => {
        const [, list = ''] = p.problem.split('; routes to it: ');
        const name = names[i]!;
        const uses = routes.filter((r) => r.upstream === name);
        const files = [...new Set(uses.map((r) => r.file))];
        if (list.split('; ').map((part) => part.split(',')[0]).join() !== files.join()) throw new Error(`${name}: files in ${list}`);
        // Listed file by file: the first few in that order are named.
        files.flatMap((file) => uses.filter((r) => r.file === file)).forEach((r, j) => {
          const named = list.includes(`${r.method} ${r.template}`);
          if (named !== j < ROUTES_NAMED) throw new Error(`${name}: route ${j} ${named ? 'named' : 'not named'} in ${list}`);
        });
        const counted = [...list.matchAll(/(?: and (\d+) more|, (\d+) routes?)(?:;|$)/g)].reduce((sum, m) => sum + Number(m[1] ?? m[2]), 0);
        if (counted !== Math.max(0, uses.length - ROUTES_NAMED)) throw new Error(`${name}: ${counted} counted of ${uses.length} in ${list}`);
      });
    }),
    400,
  );
});
