// The failure throttle's settings: the IPv6 prefix an address counts by (32 to 128, /64 by
// default), and a per-credential ceiling at least twice the per-pair one, so that no single
// network can spend a credential's ceiling alone.
import t, { type Test } from 'tap';
import { settingsFrom, SettingsError } from '../../gateway/config/settings.js';

function refuses(t: Test, build: () => unknown, ...fragments: string[]): void {
  let caught: unknown;
  try {
    build();
  } catch (error) {
    caught = error;
  }
  t.type(caught, SettingsError, `refused: ${fragments.join(' | ')}`);
  const message = (caught as Error | undefined)?.message ?? '';
  for (const fragment of fragments) t.match(message, fragment, `the message names ${fragment}`);
}

t.test('the IPv6 prefix: /64 by default, set by config or environment, 32 to 128', async (t) => {
  t.equal(settingsFrom({}, {}, '/srv/gw').throttleIpv6Prefix, 64);
  t.equal(settingsFrom({ throttle_ipv6_prefix: 56 }, {}, '/srv/gw').throttleIpv6Prefix, 56);
  t.equal(settingsFrom({ throttle_ipv6_prefix: 56 }, { GATEWAY_THROTTLE_IPV6_PREFIX: '128' }, '/srv/gw').throttleIpv6Prefix, 128, 'the environment wins');
  t.equal(settingsFrom({}, { GATEWAY_THROTTLE_IPV6_PREFIX: '32' }, '/srv/gw').throttleIpv6Prefix, 32);
  refuses(t, () => settingsFrom({}, { GATEWAY_THROTTLE_IPV6_PREFIX: '31' }, '/srv/gw'), 'GATEWAY_THROTTLE_IPV6_PREFIX', 'must be between 32 and 128, got 31');
  refuses(t, () => settingsFrom({ throttle_ipv6_prefix: 129 }, {}, '/srv/gw'), 'throttle_ipv6_prefix (config) / GATEWAY_THROTTLE_IPV6_PREFIX', 'must be between 32 and 128, got 129');
  refuses(t, () => settingsFrom({}, { GATEWAY_THROTTLE_IPV6_PREFIX: '/64' }, '/srv/gw'), 'GATEWAY_THROTTLE_IPV6_PREFIX', 'must be a whole number');
});

t.test('the per-credential ceiling is at least twice the per-pair one', async (t) => {
  const defaults = settingsFrom({}, {}, '/srv/gw');
  t.same([defaults.throttleMaxFailures, defaults.throttleMaxFailuresPerAddress, defaults.throttleMaxFailuresPerCredential], [10, 50, 1000]);
  t.equal(settingsFrom({ throttle_max_failures: 600 }, {}, '/srv/gw').throttleMaxFailuresPerCredential, 1200, 'its default follows a high pair ceiling');
  t.equal(settingsFrom({ throttle_max_failures: 3, throttle_max_failures_per_credential: 6 }, {}, '/srv/gw').throttleMaxFailuresPerCredential, 6, 'twice is enough');
  refuses(
    t,
    () => settingsFrom({ throttle_max_failures: 10, throttle_max_failures_per_credential: 19 }, {}, '/srv/gw'),
    'throttle_max_failures_per_credential (config) / GATEWAY_THROTTLE_MAX_FAILURES_PER_CREDENTIAL',
    'must be at least twice throttle_max_failures (20), so that one network cannot reach it alone',
  );
  refuses(t, () => settingsFrom({}, { GATEWAY_THROTTLE_MAX_FAILURES: '10', GATEWAY_THROTTLE_MAX_FAILURES_PER_CREDENTIAL: '10' }, '/srv/gw'), 'GATEWAY_THROTTLE_MAX_FAILURES_PER_CREDENTIAL', 'at least twice');
});
