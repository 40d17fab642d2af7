// The bench's gRPC load generator reads each answer only as far as its google.rpc code: against the
// real listener it counts allowed answers as such and refusals as non-2xx, within its bounded run.
import t from 'tap';
import { envoyBearerCheck, grpcCheckGenerator } from '../../bench/grpc-load.js';
import { startGrpcGateway } from '../decision/envoy-check.js';
import { accessToken, createClient } from '../helpers/oauth.js';

t.test('allowed Checks are counted as answered, refused ones as non-2xx', async (t) => {
  const { tg, port } = await startGrpcGateway(t, {}, { store: 'embedded' });
  const token = await accessToken(tg, await createClient(tg, ['sales']));
  const address = `127.0.0.1:${port}`;
  const allowed = await grpcCheckGenerator(address, envoyBearerCheck('/v1/sales/42', 'api.test', token, '192.0.2.10')).run(
    { url: address },
    { seconds: 1, connections: 4 },
  );
  t.ok(allowed.requests > 0, `${allowed.requests} answered`);
  t.equal(allowed.non2xx, 0);
  t.equal(allowed.errors, 0);
  t.ok(allowed.p50Ms > 0 && allowed.p99Ms >= allowed.p50Ms, 'latencies of the allowed answers');
  const refused = await grpcCheckGenerator(address, envoyBearerCheck('/v1/sales/42', 'api.test', 'not-a-token', '192.0.2.10')).run(
    { url: address },
    { seconds: 1, connections: 4 },
  );
  t.ok(refused.requests > 0);
  t.equal(refused.non2xx, refused.requests, 'every refusal counted');
  t.equal(refused.errors, 0);
});
