// The shape of a policy file, declared once: the loader checks files against it (policy-shape.ts),
// and `npm run docs` publishes it as policies/policy.schema.json, which editors use to check policy
// files as people type. `errorMessage` says what a field expects: the loader's messages put it after
// the field's name, and editors (yaml-language-server) show it instead of their generic wording.
// What a schema cannot say (overlapping routes, a scheme without its scopes or permissions,
// undeclared names) is checked by policy-loader.ts; an upstream without a URL, at start
// (config/routed-upstreams.ts).
import { Type, type Static, type TSchema } from 'typebox';
import { MAX_REQUESTS, MAX_WINDOW_SECONDS, WINDOW_WITH_UNIT } from './rate-limit-rule.js';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export const AUTH_SCHEMES = ['bearer', 'signature'] as const;
export type AuthScheme = (typeof AUTH_SCHEMES)[number];
/** Who checks a signed body against its Content-Digest: the gateway, or (decision mode) the upstream. */
export const DIGEST_CHECKS = ['gateway', 'upstream'] as const;
export type DigestCheck = (typeof DIGEST_CHECKS)[number];
/** What a bearer route asks beyond the token: none, or the FAPI 2.0 HTTP signature profile (signed requests and responses). */
export const MESSAGE_SIGNING = ['none', 'fapi-2'] as const;
export type MessageSigning = (typeof MESSAGE_SIGNING)[number];

/** The name of a configured upstream. */
export const UPSTREAM_NAME_PATTERN = '^[a-z][a-z0-9-]{0,31}$';
/** A scope's or permission's name: no spaces (tokens list scopes with spaces) and no commas (the CLI lists names with commas). */
export const VOCABULARY_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$';
const VOCABULARY_NAME_RULE = 'a letter or digit, then letters, digits, _ . : or -; at most 64 characters';
/** Text on one line with something besides spaces; shown wherever the name is offered. */
const DESCRIPTION_PATTERN = '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$';
const MAX_DESCRIPTION = 200;

/** Annotations of a field: what it is (editors show it on hover) and what it expects (in messages). */
function about(description: string, errorMessage: string): { description: string; errorMessage: string } {
  return { description, errorMessage };
}

/** A pattern matching the words in any case ("get", "Get" and "GET"), as methods have always been read. */
function anyCase(words: readonly string[]): string {
  const letters = (word: string) => [...word].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join('');
  return `^(${words.map(letters).join('|')})$`;
}

const Method = Type.String({
  pattern: anyCase(METHODS),
  ...about('The HTTP method, in any case.', `must be one of ${METHODS.join(', ')}`),
});
const PathTemplate = Type.String({
  pattern: '^/',
  ...about(
    'The path template: literal segments and {parameters}, each a whole segment, e.g. /v1/sales/{id}. A parameter matches any one segment.',
    'must be a path template such as /v1/sales/{id}',
  ),
});
const Host = (scope: string) =>
  Type.String({
    pattern: '^[A-Za-z0-9.-]+$',
    ...about(`Only requests for this host (without port) match ${scope}; any host when left out.`, 'must be a host name without port or scheme'),
  });
const Upstream = (scope: string) =>
  Type.String({
    pattern: UPSTREAM_NAME_PATTERN,
    ...about(
      `The configured upstream of ${scope}, e.g. public.`,
      'must be the name of a configured upstream (a lower-case letter, then lower-case letters, digits or -; at most 32 characters)',
    ),
  });
const Auth = (scope: string) =>
  Type.Enum(AUTH_SCHEMES, {
    ...about(
      `How callers of ${scope} authenticate: bearer (an OAuth access token) or signature (a signed request).`,
      `must be one of ${AUTH_SCHEMES.join(', ')}`,
    ),
  });
const Digest = (scope: string) =>
  Type.Enum(DIGEST_CHECKS, {
    ...about(
      `Who checks the body of a signed request to ${scope} against its Content-Digest when an edge proxy asks for a decision without the body: the gateway (such a request is refused; the default) or the upstream.`,
      `must be one of ${DIGEST_CHECKS.join(', ')}`,
    ),
  });
const MessageSigningField = (scope: string) =>
  Type.Enum(MESSAGE_SIGNING, {
    ...about(
      `Whether ${scope} (a bearer route) follows the FAPI 2.0 HTTP signature profile: fapi-2 (each request signed by the client's registered key with tag fapi-2-request, each response signed by the gateway with tag fapi-2-response) or none (the default).`,
      `must be one of ${MESSAGE_SIGNING.join(', ')}`,
    ),
  });
const RateLimit = (scope: string) =>
  Type.Union(
    [
      Type.Literal('none'),
      Type.Object(
        {
          requests: Type.Integer({ minimum: 1, maximum: MAX_REQUESTS, description: 'Requests a credential may send in one window (also the largest burst).' }),
          per: Type.Union(
            [Type.Integer({ minimum: 1, maximum: MAX_WINDOW_SECONDS }), Type.String({ pattern: WINDOW_WITH_UNIT })],
            about(
              'The window: whole seconds (60) or a number with a unit s, m, h or d (30s, 1m, 2h, 1d), from 1s to 1d.',
              'must be 1 to 86400 seconds, or 30s, 1m, 2h, 1d',
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ],
    about(
      `Requests per credential and window on ${scope}, e.g. { requests: 100, per: 1m }; none: not limited.`,
      'must be a mapping such as { requests: 100, per: 1m }, or none',
    ),
  );
const NameList = (kind: 'scope' | 'permission', description: string) =>
  Type.Array(Type.String({ pattern: VOCABULARY_NAME_PATTERN, errorMessage: `must be a ${kind} name (${VOCABULARY_NAME_RULE})` }), {
    ...about(description, `must be a list of ${kind} names`),
  });
const Description = Type.String({
  minLength: 1,
  maxLength: MAX_DESCRIPTION,
  pattern: DESCRIPTION_PATTERN,
  ...about('What holding it allows, in words.', `must be a description: text on one line, at most ${MAX_DESCRIPTION} characters`),
});
/** name: description, or name: { description, ...flags }. */
const Declarations = <T extends TSchema>(kind: 'scope' | 'permission', entry: T, description: string) =>
  Type.Record(Type.String({ pattern: VOCABULARY_NAME_PATTERN }), entry, {
    additionalProperties: false,
    ...about(description, `must map ${kind} names (${VOCABULARY_NAME_RULE}) to descriptions`),
  });

const ScopeDeclaration = Type.Union([Description, Type.Object({ description: Description }, { additionalProperties: false })], {
  errorMessage: 'must be a description, or { description }',
});
const PermissionDeclaration = Type.Union(
  [
    Description,
    Type.Object(
      {
        description: Description,
        moves_money: Type.Optional(
          Type.Boolean({ ...about('Marked "moves money" where permissions are granted, so over-granting stands out.', 'must be true or false') }),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { errorMessage: 'must be a description, or { description, moves_money: true }' },
);

const ROUTE = 'the route';
export const PolicyRouteSchema = Type.Object(
  {
    id: Type.Optional(
      Type.Union([Type.String({ pattern: '\\S' }), Type.Number()], {
        ...about(
          'Names the route in metrics, logs and the RateLimit fields; default: the file name, the method, the host and the path, e.g. "public:GET /v1/sales/{id}".',
          'must be non-empty text',
        ),
      }),
    ),
    method: Method,
    path: PathTemplate,
    host: Type.Optional(Host(ROUTE)),
    upstream: Type.Optional(Upstream(ROUTE)),
    auth: Type.Optional(Auth(ROUTE)),
    scopes: Type.Optional(NameList('scope', 'The scopes a Bearer token needs for this route (all of them); declared under scopes:.')),
    permissions: Type.Optional(
      NameList('permission', 'The permissions a signing service account needs for this route (all of them); declared under permissions:.'),
    ),
    rate_limit: Type.Optional(RateLimit(ROUTE)),
    digest: Type.Optional(Digest(ROUTE)),
    message_signing: Type.Optional(MessageSigningField(ROUTE)),
  },
  { additionalProperties: false, description: 'A method and a path template, with the upstream, the scheme and the scopes or permissions it needs.' },
);

const FILE = 'each route of the file without its own';
export const PolicyFileSchema = Type.Object(
  {
    upstream: Type.Optional(Upstream(FILE)),
    auth: Type.Optional(Auth(FILE)),
    host: Type.Optional(Host(FILE)),
    rate_limit: Type.Optional(RateLimit(FILE)),
    digest: Type.Optional(Digest(FILE)),
    message_signing: Type.Optional(MessageSigningField(FILE)),
    scopes: Type.Optional(
      Declarations('scope', ScopeDeclaration, 'The OAuth scopes this file declares, name: description. Any policy file may name them in its routes.'),
    ),
    permissions: Type.Optional(
      Declarations(
        'permission',
        PermissionDeclaration,
        'The service-account permissions this file declares, name: description or name: { description, moves_money: true }. Any policy file may name them in its routes.',
      ),
    ),
    routes: Type.Array(PolicyRouteSchema, { minItems: 1, ...about('The routes; a request matching none gets 404.', 'must be a non-empty list of routes') }),
  },
  {
    additionalProperties: false,
    title: 'Access gateway policy file',
    description:
      'Routes the gateway lets through, with the scopes and permissions they need. The upstream, auth, host, rate_limit, digest and message_signing given here apply to every route that gives none.',
  },
);
export type PolicyFileShape = Static<typeof PolicyFileSchema>;
export type PolicyRouteShape = Static<typeof PolicyRouteSchema>;
