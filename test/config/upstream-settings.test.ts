// Named upstreams: `upstreams:` in the config file (name: URL, or name: { url, timeout_ms,
// connections }) and GATEWAY_UPSTREAM_<NAME> variables; PUBLIC_UPSTREAM and BANKING_UPSTREAM stay the
// URLs of public and banking. A default timeout and connection limit for all, overridden per upstream.
import t from 'tap';
import { settingsFrom } from '../../gateway/config/settings.js';
import { settingsProblems } from '../helpers/settings-problems.js';

const problems = settingsProblems;

t.test('by default: public and banking, without URLs, with the default timeout and no connection limit', async (t) => {
  const s = settingsFrom({}, {}, '/srv/gw');
  t.same(s.upstreams, {
    public: { url: undefined, timeoutMs: 10_000, connections: 0 },
    banking: { url: undefined, timeoutMs: 10_000, connections: 0 },
  });
  t.ok(Object.isFrozen(s.upstreams) && Object.isFrozen(s.upstreams.public), 'frozen');
});

t.test('the config file: a URL, or a mapping with url, timeout_ms and connections', async (t) => {
  const s = settingsFrom(
    {
      upstream_timeout_ms: 4000,
      upstream_connections: 32,
      upstreams: {
        public: 'http://public.internal:9000',
        ledger: { url: 'https://ledger.internal', timeout_ms: 2500, connections: 8 },
        'reports-v2': { url: 'http://reports.internal', connections: 0 },
        archive: { timeout_ms: 60_000 },
        empty: null,
      },
    },
    {},
    '/srv/gw',
  );
  t.same(s.upstreams, {
    public: { url: 'http://public.internal:9000', timeoutMs: 4000, connections: 32 },
    banking: { url: undefined, timeoutMs: 4000, connections: 32 },
    ledger: { url: 'https://ledger.internal', timeoutMs: 2500, connections: 8 },
    'reports-v2': { url: 'http://reports.internal', timeoutMs: 4000, connections: 0 },
    archive: { url: undefined, timeoutMs: 60_000, connections: 32 },
    empty: { url: undefined, timeoutMs: 4000, connections: 32 },
  });
});

t.test('GATEWAY_UPSTREAM_<NAME>: the name upper-cased, - as _; the environment wins over the file', async (t) => {
  const s = settingsFrom(
    { upstreams: { 'ledger-v2': { url: 'http://old.internal', timeout_ms: 1500 } } },
    { GATEWAY_UPSTREAM_LEDGER_V2: 'http://ledger.internal:8080', GATEWAY_UPSTREAM_BILLING: 'https://billing.internal', GATEWAY_UPSTREAM_EMPTY: '' },
    '/srv/gw',
  );
  t.same(s.upstreams['ledger-v2'], { url: 'http://ledger.internal:8080', timeoutMs: 1500, connections: 0 }, 'the URL from the environment, the timeout from the file');
  t.same(s.upstreams.billing, { url: 'https://billing.internal', timeoutMs: 10_000, connections: 0 }, 'a variable alone declares an upstream');
  t.notOk('empty' in s.upstreams, 'an empty variable declares nothing');
  t.same(Object.keys(s.upstreams), ['public', 'banking', 'ledger-v2', 'billing']);
});

t.test('PUBLIC_UPSTREAM and BANKING_UPSTREAM (public_upstream and banking_upstream) are the URLs of public and banking', async (t) => {
  const s = settingsFrom({ banking_upstream: 'https://banking.internal' }, { PUBLIC_UPSTREAM: 'http://public.internal' }, '/srv/gw');
  t.equal(s.upstreams.public!.url, 'http://public.internal');
  t.equal(s.upstreams.banking!.url, 'https://banking.internal');
  t.notOk('publicUpstream' in s, 'no field of their own: upstreams holds them');

  t.equal(settingsFrom({ upstreams: { public: 'http://file.internal' } }, { PUBLIC_UPSTREAM: 'http://env.internal' }).upstreams.public!.url, 'http://env.internal', 'the environment wins over the file, either form');
  t.equal(settingsFrom({ public_upstream: 'http://old.internal' }, { GATEWAY_UPSTREAM_PUBLIC: 'http://new.internal' }).upstreams.public!.url, 'http://new.internal');
  t.equal(
    settingsFrom({ public_upstream: 'http://same.internal', upstreams: { public: { url: 'http://same.internal', timeout_ms: 700 } } }).upstreams.public!.url,
    'http://same.internal',
    'both forms in one place with the same URL: fine',
  );
  t.equal(settingsFrom({}, { PUBLIC_UPSTREAM: 'http://same.internal', GATEWAY_UPSTREAM_PUBLIC: ' http://same.internal' }).upstreams.public!.url, 'http://same.internal');
});

t.test('two forms in one place naming different URLs are a contradiction, refused', async (t) => {
  t.same(problems(t, {}, { PUBLIC_UPSTREAM: 'http://a.internal', GATEWAY_UPSTREAM_PUBLIC: 'http://b.internal' }), [
    'PUBLIC_UPSTREAM and GATEWAY_UPSTREAM_PUBLIC: name different URLs for upstream public; set one of them (PUBLIC_UPSTREAM is the older name of GATEWAY_UPSTREAM_PUBLIC)',
  ]);
  t.same(problems(t, { banking_upstream: 'http://a.internal', upstreams: { banking: { url: 'http://b.internal' } } }), [
    'banking_upstream (config) and upstreams.banking.url (config): name different URLs for upstream banking; keep one of them',
  ]);
});

t.test('names: a lower-case letter, then up to 31 lower-case letters, digits or -; not a setting of its own', async (t) => {
  t.same(problems(t, { upstreams: { Ledger: 'http://a', '9ledger': 'http://b', ['x'.repeat(33)]: 'http://c', ledger_v2: 'http://d' } }), [
    'upstreams.Ledger (config): "Ledger" is not an upstream name: a lower-case letter, then up to 31 lower-case letters, digits or -',
    'upstreams.9ledger (config): "9ledger" is not an upstream name: a lower-case letter, then up to 31 lower-case letters, digits or -',
    `upstreams.${'x'.repeat(33)} (config): "${'x'.repeat(33)}" is not an upstream name: a lower-case letter, then up to 31 lower-case letters, digits or -`,
    'upstreams.ledger_v2 (config): "ledger_v2" is not an upstream name: a lower-case letter, then up to 31 lower-case letters, digits or -',
  ]);
  t.same(problems(t, { upstreams: { 'timeout-ms': 'http://a' } }), [
    'upstreams.timeout-ms (config): timeout-ms cannot be an upstream\'s name: GATEWAY_UPSTREAM_TIMEOUT_MS is a setting of its own',
  ]);
  t.match(problems(t, {}, { GATEWAY_UPSTREAM_9LEDGER: 'http://a' }), [/^GATEWAY_UPSTREAM_9LEDGER: does not name an upstream: GATEWAY_UPSTREAM_<NAME> is the name upper-cased/]);
  t.match(problems(t, {}, { GATEWAY_UPSTREAM_ledger: 'http://a' }), [/^GATEWAY_UPSTREAM_ledger: does not name an upstream/], 'the variable is upper-case');
  t.same(
    settingsFrom({}, { GATEWAY_UPSTREAM_TIMEOUT_MS: '500' }).upstreams,
    { public: { url: undefined, timeoutMs: 500, connections: 0 }, banking: { url: undefined, timeoutMs: 500, connections: 0 } },
    'GATEWAY_UPSTREAM_TIMEOUT_MS is the default timeout, not an upstream',
  );
});

t.test('URLs: http or https only, never echoing a password; a misspelt setting is pointed at', async (t) => {
  t.same(problems(t, { upstreams: { ledger: 'ftp://files.internal', archive: { url: 'not a url' } } }), [
    'upstreams.ledger (config) / GATEWAY_UPSTREAM_LEDGER: must use http: or https:, got ftp:',
    'upstreams.archive.url (config) / GATEWAY_UPSTREAM_ARCHIVE: must be a URL, got "not a url"',
  ]);
  const secret = problems(t, {}, { GATEWAY_UPSTREAM_LEDGER: 'http://user:hunter2hunter2@bad host/' });
  t.match(secret, [/^GATEWAY_UPSTREAM_LEDGER: must be a URL/]);
  t.notMatch(secret.join(), 'hunter2');
  t.same(problems(t, {}, { GATEWAY_UPSTREAM_TIMEOUT: '500' }), ['GATEWAY_UPSTREAM_TIMEOUT: must be a URL, got "500" (did you mean GATEWAY_UPSTREAM_TIMEOUT_MS?)']);
  t.same(problems(t, {}, { PUBLIC_UPSTREAM: 'ftp://x' }), ['PUBLIC_UPSTREAM: must use http: or https:, got ftp:'], 'the older variable is checked once');
});

t.test('per-upstream overrides are checked like the defaults they override', async (t) => {
  t.same(problems(t, { upstreams: { ledger: { url: 'http://a', timeout_ms: 50, connections: -1, retries: 3 } } }), [
    'upstreams.ledger.retries (config): is not an upstream setting (url, timeout_ms, connections)',
    'upstreams.ledger.timeout_ms (config): must be between 100 and 600000, got 50',
    'upstreams.ledger.connections (config): must be a whole number, got -1',
  ]);
  t.same(problems(t, { upstreams: ['http://a'] }), ['upstreams (config): must be a mapping of upstream names to URLs (or to { url, timeout_ms, connections })']);
  t.same(problems(t, { upstream_connections: 100_001 }), ['upstream_connections (config) / GATEWAY_UPSTREAM_CONNECTIONS: must be between 0 and 100000, got 100001']);
});
