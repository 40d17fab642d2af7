// JSON texts nested many levels deep, for the tests of the depth limit on JSON bodies. Written by
// repetition, without recursion: what they test is that nothing recurses over them.

export type Nesting = 'lists' | 'objects' | 'mixed';
export const NESTINGS: readonly Nesting[] = ['lists', 'objects', 'mixed'];

/** A JSON value `levels` lists and/or objects deep around the number 1: [[1]], {"a":{"a":1}}, [{"a":[1]}]. */
export function deepJson(levels: number, nesting: Nesting): string {
  const opens: string[] = [];
  const closes: string[] = [];
  for (let level = 0; level < levels; level++) {
    const list = nesting === 'lists' || (nesting === 'mixed' && level % 2 === 0);
    opens.push(list ? '[' : '{"a":');
    closes.push(list ? ']' : '}');
  }
  return `${opens.join('')}1${closes.reverse().join('')}`;
}

/** The message of the 400 for a body nested too deeply, in the field named. */
export function tooDeepMessage(field: string): string {
  return `${field}: is nested too deeply (a request body may nest lists and objects at most 32 levels deep)`;
}
