// Tracing's settings: OpenTelemetry's own variables, read from the environment once at start into
// Settings.tracing. Off by default and with OTEL_TRACES_EXPORTER=none; with otlp, every invalid value
// is refused naming its variable and what it accepts, beside the other settings' problems; unset
// variables take the specification's defaults (service name access-gateway, parent-based ratio 1).
import t, { type Test } from 'tap';
import { settingsFrom } from '../../gateway/config/settings.js';
import { settingsProblems } from '../helpers/settings-problems.js';

const ON = { OTEL_TRACES_EXPORTER: 'otlp' };

/** The problems a refused start reports for these variables (and this file). */
const problems = (t: Test, env: Record<string, string>, yaml: Record<string, unknown> = {}) => settingsProblems(t, yaml, env);

t.test('off by default, with none, and with OTEL_SDK_DISABLED=true', async (t) => {
  t.equal(settingsFrom({}, {}, '/srv/gw').tracing, null, 'unset: off');
  t.equal(settingsFrom({}, { OTEL_TRACES_EXPORTER: 'none' }, '/srv/gw').tracing, null);
  t.equal(settingsFrom({}, { OTEL_TRACES_EXPORTER: '' }, '/srv/gw').tracing, null, 'an empty variable is unset');
  t.equal(settingsFrom({}, { ...ON, OTEL_SDK_DISABLED: 'true' }, '/srv/gw').tracing, null);
  // Variables meant for another service's SDK do not stop a gateway that does not trace.
  t.equal(settingsFrom({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_TRACES_SAMPLER: 'jaeger_remote' }, '/srv/gw').tracing, null);
});

t.test("on: the specification's defaults", async (t) => {
  const s = settingsFrom({}, ON, '/srv/gw');
  t.same(s.tracing, {
    endpoint: 'http://localhost:4318/v1/traces',
    protocol: 'http/protobuf',
    sampler: 'parentbased_traceidratio',
    ratio: 1,
    serviceName: 'access-gateway',
  });
  t.ok(Object.isFrozen(s.tracing), 'frozen');
});

t.test('on: each variable read', async (t) => {
  const s = settingsFrom(
    {},
    {
      ...ON,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.internal:4318/',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_SERVICE_NAME: 'edge-gateway',
    },
    '/srv/gw',
  );
  t.same(s.tracing, {
    endpoint: 'https://collector.internal:4318/v1/traces',
    protocol: 'http/json',
    sampler: 'traceidratio',
    ratio: 0.25,
    serviceName: 'edge-gateway',
  });
  const base = settingsFrom({}, { ...ON, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318/prefix' }, '/srv/gw');
  t.equal(base.tracing?.endpoint, 'http://otel:4318/prefix/v1/traces', 'the traces path appended to the base URL');
});

t.test('the traces-specific variables win over the general ones', async (t) => {
  const s = settingsFrom(
    {},
    {
      ...ON,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://general:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom/path',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    },
    '/srv/gw',
  );
  t.equal(s.tracing?.endpoint, 'http://traces:9999/custom/path', 'used as written');
  t.equal(s.tracing?.protocol, 'http/json');
});

t.test('the sampler argument: a ratio from 0 to 1 for the ratio samplers, ignored by the others', async (t) => {
  t.equal(settingsFrom({}, { ...ON, OTEL_TRACES_SAMPLER_ARG: '0' }, '/srv/gw').tracing?.ratio, 0, 'the default sampler takes it');
  t.equal(settingsFrom({}, { ...ON, OTEL_TRACES_SAMPLER_ARG: '.5' }, '/srv/gw').tracing?.ratio, 0.5);
  t.equal(settingsFrom({}, { ...ON, OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_SAMPLER_ARG: 'x' }, '/srv/gw').tracing?.sampler, 'always_off');
  for (const bad of ['1.5', '-0.1', 'half', '1e-3', 'NaN']) {
    t.same(
      problems(t, { ...ON, OTEL_TRACES_SAMPLER_ARG: bad }),
      [`OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1 (the share of new traces parentbased_traceidratio keeps), got ${JSON.stringify(bad)}`],
      bad,
    );
  }
});

t.test('unsupported values stop the start, naming the variable and the accepted values', async (t) => {
  t.same(problems(t, { OTEL_TRACES_EXPORTER: 'zipkin' }), ['OTEL_TRACES_EXPORTER: must be one of otlp, none (unset: none, tracing off), got "zipkin"']);
  t.same(problems(t, { OTEL_TRACES_EXPORTER: 'otlp,console' }), ['OTEL_TRACES_EXPORTER: must be one of otlp, none (unset: none, tracing off), got "otlp,console"']);
  t.same(problems(t, { ...ON, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), [
    'OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http/protobuf, http/json (OTLP over HTTP; grpc is not supported), got "grpc"',
  ]);
  t.same(problems(t, { ...ON, OTEL_TRACES_SAMPLER: 'jaeger_remote' }), [
    'OTEL_TRACES_SAMPLER: must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio, got "jaeger_remote"',
  ]);
  t.same(problems(t, { ...ON, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318' }), ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must use http: or https:, got collector:']);
  t.same(problems(t, { ...ON, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:secret@' }), ['OTEL_EXPORTER_OTLP_ENDPOINT: must be a URL, got "http://***@"'], 'no credential echoed');
  t.same(problems(t, { ...ON, OTEL_SDK_DISABLED: 'yes' }), ['OTEL_SDK_DISABLED: must be one of true, false, got "yes"']);
});

t.test('every problem in one message, with the GATEWAY_* settings', async (t) => {
  const found = problems(t, { ...ON, GATEWAY_PORT: 'eighty', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc', OTEL_TRACES_SAMPLER: 'sometimes', OTEL_TRACES_SAMPLER_ARG: '2' });
  t.equal(found.length, 3, 'the argument of an unknown sampler is not judged');
  t.match(found, [/^GATEWAY_PORT: /, /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: .*grpc is not supported/, /^OTEL_TRACES_SAMPLER: must be one of /]);
});
