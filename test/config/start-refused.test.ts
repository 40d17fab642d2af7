// A real start (gateway/main.ts as npm start runs it) with an invalid setting exits non-zero and
// says which setting is wrong, before opening any listener.
import t from 'tap';
import { runGatewayToExit } from '../helpers/gateway-spawn.js';

t.test('a bad port stops the start with a message naming GATEWAY_PORT', async (t) => {
  const { code, output } = await runGatewayToExit({ GATEWAY_PORT: 'eighty' });
  t.equal(code, 1);
  t.match(output, 'Invalid setting GATEWAY_PORT: must be a whole number');
  t.notMatch(output, 'gateway started');
});

t.test('production without REDIS_URL stops the start', async (t) => {
  const { code, output } = await runGatewayToExit({ GATEWAY_ENV: 'production', GATEWAY_ADMIN_TOKEN: 'y'.repeat(40), PUBLIC_UPSTREAM: 'http://127.0.0.1:1', BANKING_UPSTREAM: 'http://127.0.0.1:1' });
  t.equal(code, 1);
  t.match(output, 'Invalid setting REDIS_URL: is required in production');
});

t.test('an unsupported OTLP protocol stops the start, naming the variable and the accepted values', async (t) => {
  const { code, output } = await runGatewayToExit({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
  t.equal(code, 1);
  t.match(output, 'Invalid setting OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http/protobuf, http/json (OTLP over HTTP; grpc is not supported), got "grpc"');
  t.notMatch(output, 'gateway started');
});
