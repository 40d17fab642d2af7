// Credentials never reach a log line: a secret field (client_secret, access_token, token, password,
// admin_token) at a line's top level or one level down (a form, a body, an error's own fields) is
// censored by the listeners' log formatter, and the headers that carry credentials by pino's
// redaction; nothing else of the line changes. Examples through a real listener logger, and a
// property over the formatter.
import { Writable } from 'node:stream';
import fc from 'fast-check';
import t from 'tap';
import { censorSecrets, listenerLogger } from '../../gateway/http/logging.js';
import { holds } from '../helpers/property.js';

const SECRET_FIELDS = ['client_secret', 'access_token', 'token', 'password', 'admin_token'];

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: listenerLogger('info', 'pino', 'decision', stream), lines };
}

t.test('a listener logger censors secret fields and credential headers, and keeps the rest', async (t) => {
  const { log, lines } = capture();
  const form = { client_id: 'c-1', client_secret: 's3cret', grant_type: 'client_credentials' };
  const failure = Object.assign(new Error('refused'), { code: 'E_X', token: 'tok-1' });
  log.info({ form, headers: { authorization: 'Bearer abc', accept: 'application/json' }, password: 'pw', status: 401 }, 'first');
  log.error({ err: failure }, 'second');
  t.same(lines[0]!.form, { client_id: 'c-1', client_secret: '[redacted]', grant_type: 'client_credentials' });
  t.same(lines[0]!.headers, { authorization: '[redacted]', accept: 'application/json' });
  t.equal(lines[0]!.password, '[redacted]');
  t.equal(lines[0]!.status, 401);
  t.match(lines[1]!.err, { message: 'refused', code: 'E_X', token: '[redacted]', type: 'Error', stack: /refused/ });
  t.equal(form.client_secret, 's3cret', "the caller's object is left as it was");
  const bytes = Buffer.alloc(4);
  t.equal(censorSecrets({ bytes, list: ['token'] }).bytes, bytes, 'a Buffer or an array is passed as it is');
  t.equal(failure.token, 'tok-1');
  const text = JSON.stringify(lines);
  for (const secret of ['s3cret', 'Bearer abc', 'pw"', 'tok-1']) t.notOk(text.includes(secret), `${secret} is not written`);
});

t.test('the formatter: every secret field at the top or one level down is censored, nothing else changes', async (t) => {
  const key = fc.oneof(
    fc.constantFrom(...SECRET_FIELDS),
    fc.constantFrom('client_id', 'status', 'path', 'body', 'tokens', 'Token'),
    fc.string({ maxLength: 8 }),
  );
  const leaf = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null));
  const nested = fc.dictionary(key, leaf, { maxKeys: 6 });
  const line = fc.dictionary(key, fc.oneof(leaf, nested), { maxKeys: 8 });
  holds(
    t,
    fc.property(line, (original) => {
      const before = structuredClone(original);
      const out = censorSecrets(original);
      const unchangedInput = JSON.stringify(original) === JSON.stringify(before);
      const everyKeyKept = Object.keys(out).join() === Object.keys(before).join();
      const ok = Object.entries(before).every(([name, value]) => {
        const written = out[name];
        if (SECRET_FIELDS.includes(name)) return written === '[redacted]';
        if (typeof value !== 'object' || value === null) return written === value;
        return Object.entries(value).every(
          ([inner, innerValue]) => (written as Record<string, unknown>)[inner] === (SECRET_FIELDS.includes(inner) ? '[redacted]' : innerValue),
        );
      });
      return unchangedInput && everyKeyKept && ok;
    }),
    500,
  );
});
