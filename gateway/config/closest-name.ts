// The known name a mistyped one most likely meant: GATEWAY_SIGNATURE_WINDOW is
// GATEWAY_SIGNATURE_WINDOW_SECONDS without its unit, GATEWAY_ADMN_PORT a typo of GATEWAY_ADMIN_PORT.

/** Edits (insert, delete, replace, swap two neighbours) that turn a into b; three rows of the table at a time. */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current.push(best);
    }
    [before, previous] = [previous, current];
  }
  return previous[b.length]!;
}

/** One name is the other with one more word (words split by _), e.g. a unit left out: GATEWAY_SIGNATURE_WINDOW. */
function oneWordMore(a: string, b: string): boolean {
  const [shorter, longer] = [a.split('_'), b.split('_')].sort((x, y) => x.length - y.length) as [string[], string[]];
  if (longer.length !== shorter.length + 1) return false;
  return longer.some((_, skipped) => longer.filter((__, i) => i !== skipped).join('_') === shorter.join('_'));
}

/** Words both names begin with (GATEWAY_), which say nothing about how alike the rest is. */
function sharedLeadingWords(a: string, b: string): number {
  let shared = 0;
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++) if (a[i] === '_') shared = i + 1;
  return shared;
}

/**
 * The closest known name (fewest edits), if one is close: a few edits away (a quarter of what
 * differs after the words both begin with, at least 2), or a word more or less.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let closest: string | undefined;
  let closestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    const rest = Math.max(name.length, candidate.length) - sharedLeadingWords(name, candidate);
    const near = distance <= Math.max(2, Math.floor(rest / 4)) || oneWordMore(name, candidate);
    if (near && distance < closestDistance) {
      closest = candidate;
      closestDistance = distance;
    }
  }
  return closest;
}
