// Layout checks for the dashboard's browser tests: the page is no wider than the screen, and the
// header's items do not sit on each other. Page scripts are passed as text (tsx rewrites functions
// with helpers that do not exist in the page).
import type { Page } from 'playwright-core';

/** document.documentElement.scrollWidth: wider than the viewport means sideways scrolling. */
export function pageWidth(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth');
}

/** The elements that stick out past the right edge (up to 5), to name the culprit when a page is too wide. */
export function elementsPastRightEdge(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
    .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > document.documentElement.clientWidth + 0.5; })
    .slice(0, 5)
    .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '') + ' right=' + Math.round(e.getBoundingClientRect().right))`);
}

/**
 * Descendants of each element matching `container` that stick out of its box sideways (up to 5):
 * content that spills over a card's edge, though the page itself may still fit the screen.
 * Clipped or scrolling boxes (overflow other than visible) keep what is inside them.
 */
export function spillingOut(page: Page, container: string): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const describe = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
    const clipped = (e, outer) => { for (let p = e.parentElement; p && p !== outer; p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true; return false; };
    const found = [];
    for (const outer of document.querySelectorAll(${JSON.stringify(container)})) {
      const box = outer.getBoundingClientRect();
      if (box.width === 0) continue;
      for (const e of outer.querySelectorAll('*')) {
        const r = e.getBoundingClientRect();
        if (r.width <= 1 || clipped(e, outer)) continue;
        if (r.left < box.left - 0.5 || r.right > box.right + 0.5) found.push(describe(e) + ' ' + Math.round(r.left) + '..' + Math.round(r.right) + ' outside ' + describe(outer) + ' ' + Math.round(box.left) + '..' + Math.round(box.right));
      }
    }
    return found.slice(0, 5);
  })()`);
}

/** The elements matching the selectors whose text runs over more than one line (words pushed apart or broken up). */
export function wrappedText(page: Page, selectors: string[]): Promise<string[]> {
  return page.evaluate<string[]>(`${JSON.stringify(selectors)}.filter((selector) => {
    const e = document.querySelector(selector);
    if (!e || e.getBoundingClientRect().width <= 1) return false;
    const range = document.createRange();
    range.selectNodeContents(e);
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    return tops.size > 1;
  })`);
}

interface Box {
  selector: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Boxes of the visible elements matching the selectors; visually hidden ones (1 px) are skipped. */
async function boxes(page: Page, selectors: string[]): Promise<Box[]> {
  const found: Box[] = [];
  for (const selector of selectors) {
    const box = await page.locator(selector).first().boundingBox();
    if (box && box.width > 1 && box.height > 1) found.push({ selector, ...box });
  }
  return found;
}

/** Every pair of the elements whose boxes intersect (more than half a pixel either way), as "a / b". */
export async function overlappingPairs(page: Page, selectors: string[]): Promise<string[]> {
  const found = await boxes(page, selectors);
  const pairs: string[] = [];
  for (let i = 0; i < found.length; i++) {
    for (let j = i + 1; j < found.length; j++) {
      const a = found[i]!;
      const b = found[j]!;
      const across = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const down = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      if (across > 0.5 && down > 0.5) pairs.push(`${a.selector} / ${b.selector}`);
    }
  }
  return pairs;
}

/** The elements matching the selectors whose box leaves the viewport sideways. */
export async function outsideViewport(page: Page, selectors: string[]): Promise<string[]> {
  const width = page.viewportSize()!.width;
  return (await boxes(page, selectors)).filter((b) => b.x < -0.5 || b.x + b.width > width + 0.5).map((b) => b.selector);
}
