// Path templates such as /v1/sales/{id}: literal segments and single-segment parameters.

export type Segment = { readonly literal: string } | { readonly param: string };

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const LITERAL = /^[A-Za-z0-9\-._~!$&'()*+,=:@]+$/;

export function compileTemplate(template: string): Segment[] {
  if (!template.startsWith('/')) throw new Error('path must start with /');
  if (template === '/') return [];
  const seen = new Set<string>();
  return template
    .slice(1)
    .split('/')
    .map((part) => {
      const param = PARAM.exec(part);
      if (param) {
        if (seen.has(param[1]!)) throw new Error(`parameter {${param[1]}} appears twice`);
        seen.add(param[1]!);
        return { param: param[1]! };
      }
      if (part === '.' || part === '..' || !LITERAL.test(part)) throw new Error(`segment ${JSON.stringify(part)} is neither a literal nor a {parameter}`);
      return { literal: part };
    });
}

/** True when the decoded request segments fit the template. */
export function templateMatches(template: readonly Segment[], segments: readonly string[]): boolean {
  if (template.length !== segments.length) return false;
  for (let i = 0; i < template.length; i++) {
    const t = template[i]!;
    if ('literal' in t && t.literal !== segments[i]) return false;
  }
  return true;
}

/** True when some request path would fit both templates. */
export function templatesOverlap(a: readonly Segment[], b: readonly Segment[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ('literal' in x && 'literal' in y && x.literal !== y.literal) return false;
  }
  return true;
}
