// HTTP that Node's parser refuses gets the gateway's JSON error body (with a request id to quote)
// and one log line with the parser's code: never the raw request bytes, which carry bearer tokens
// and client secrets, even at trace level.
import t from 'tap';
import { startTestGateway } from '../helpers/gateway.js';
import { decisionConfig } from '../decision/decision-policies.js';
import { listen, partialRequest } from '../helpers/http.js';

const TOKEN = 'eyJhbGciOiJFZERTQSJ9.c2VjcmV0LXRva2VuLXBheWxvYWQ.c2lnbmF0dXJlLWJ5dGVz';
const SECRET = 'client-secret-that-must-never-be-logged-0123456789';

t.test('malformed requests: catalog JSON body, a request id, no raw bytes in the logs', async (t) => {
  const tg = await startTestGateway(t, { config: decisionConfig(t, { log_level: 'trace' }) });
  const { publicPort, adminPort, decisionPort } = await listen(tg);
  const malformed = [
    {
      name: 'a header line without a colon',
      bytes: `GET /v1/sales HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nthis line has no colon ${SECRET}\r\n\r\n`,
      code: 'bad_request',
      status: 400,
    },
    {
      name: 'a bad request line',
      bytes: `GET /v1/oauth/token?client_secret=${SECRET} HTTP/9.9 extra\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
      code: 'bad_request',
      status: 400,
    },
    {
      name: 'a bad chunk size',
      bytes: `POST /v1/oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nzz\r\nclient_secret=${SECRET}\r\n0\r\n\r\n`,
      code: 'bad_request',
      status: 400,
    },
    {
      name: 'Content-Length and Transfer-Encoding together',
      bytes: `POST /v1/oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      code: 'bad_request',
      status: 400,
    },
    {
      name: 'headers larger than the parser accepts',
      bytes: `GET /v1/sales HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      code: 'headers_too_large',
      status: 431,
    },
  ];
  // The decision listener is a node:http server of its own (gateway/decision/decision-listener.ts).
  for (const port of [publicPort, adminPort, decisionPort!]) {
    // The decision listener refuses a POST to an unknown path from its head, before the body (and its bad chunk) is read.
    for (const c of malformed.filter((c) => port !== decisionPort || c.name !== 'a bad chunk size')) {
      const response = await partialRequest(port, c.bytes, '', 3000).response;
      t.equal(response.status, c.status, `${c.name}: ${response.body}`);
      const body = JSON.parse(response.body) as Record<string, string>;
      t.same(Object.keys(body).sort(), ['error', 'message', 'request_id'], `${c.name}: the catalog body`);
      t.equal(body.error, c.code, c.name);
      t.equal(response.headers['x-request-id'], body.request_id, `${c.name}: the request id is in the header and the body`);
      t.equal(response.headers.connection, 'close');
      const line = tg.logs.lines.find((l) => l.includes(body.request_id!));
      t.ok(line, `${c.name}: one log line names the request id`);
      t.match(JSON.parse(line!), { code: c.code, msg: 'malformed or incomplete request refused' });
    }
  }
  t.notMatch(tg.logs.text, TOKEN, 'no bearer token in any log line');
  t.notMatch(tg.logs.text, SECRET, 'no client secret in any log line');
  t.notMatch(tg.logs.text, /rawPacket/, 'no raw packet is logged');
});
