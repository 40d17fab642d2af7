// The load generator when wrk is installed: one thread (one core), a generated Lua script per
// target, the figures parsed from its --latency output. Pre-signed requests are written to a file
// that the script formats into raw requests in init(), so request() only indexes an array.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LoadGenerator, LoadResult, LoadTarget } from './load-target.js';

const WRK = '/usr/bin/wrk';

/** A Lua string literal: the few characters Lua needs escaped, and anything unprintable as \ddd. */
function luaString(text: string): string {
  return `"${text.replace(/[\\"]|[^\x20-\x7e]/g, (c) => (c === '\\' || c === '"' ? `\\${c}` : `\\${c.charCodeAt(0)}`))}"`;
}

function staticPart(target: LoadTarget): string {
  const lines = [`wrk.method = ${luaString(target.method ?? 'GET')}`];
  if (target.body !== undefined) lines.push(`wrk.body = ${luaString(target.body)}`);
  for (const [name, value] of Object.entries(target.headers ?? {})) lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  return lines.join('\n');
}

// The header file: names on the first line, then one request's values per line, tab-separated.
// `exhausted` is global so that done() can read it from the thread (thread:get).
const PRESIGNED = `
local requests, count, sent = {}, 0, 0
exhausted = 0

function init(args)
  local names
  for line in io.lines(args[1]) do
    local values = {}
    for value in string.gmatch(line, "[^\\t]+") do values[#values + 1] = value end
    if names == nil then
      names = values
    else
      local headers = {}
      for name, value in pairs(wrk.headers) do headers[name] = value end
      for i, name in ipairs(names) do headers[name] = values[i] end
      count = count + 1
      requests[count] = wrk.format(nil, nil, headers)
    end
  end
end

function request()
  sent = sent + 1
  if sent > count then exhausted = exhausted + 1 end
  return requests[(sent - 1) % count + 1]
end

local threads = {}
function setup(thread) threads[#threads + 1] = thread end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("exhausted") end
  io.write(string.format("pool exhausted: %d\\n", total))
end
`;

function writeHeaderFile(file: string, sets: Record<string, string>[]): void {
  const names = Object.keys(sets[0] ?? {});
  const lines = [names.join('\t'), ...sets.map((set) => names.map((name) => set[name]).join('\t'))];
  writeFileSync(file, `${lines.join('\n')}\n`);
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function milliseconds(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match) throw new Error(`unreadable wrk latency ${JSON.stringify(text)}`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

export function parseWrkOutput(output: string): LoadResult {
  const number = (pattern: RegExp): number | undefined => {
    const match = pattern.exec(output);
    return match ? Number(match[1]) : undefined;
  };
  const percentile = (p: number) => {
    // wrk pads the column: a latency in seconds ("1.15s ") ends with a space.
    const match = new RegExp(`^\\s+${p}%\\s+(\\S+)\\s*$`, 'm').exec(output);
    if (!match) throw new Error(`wrk printed no ${p}% latency:\n${output}`);
    return milliseconds(match[1]!);
  };
  const requests = number(/^\s+(\d+) requests in /m);
  const requestsPerSecond = number(/^Requests\/sec:\s+([\d.]+)/m);
  if (requests === undefined || requestsPerSecond === undefined) throw new Error(`unreadable wrk output:\n${output}`);
  const socket = /^\s+Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/m.exec(output);
  return {
    requests,
    requestsPerSecond,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    non2xx: number(/^\s+Non-2xx or 3xx responses: (\d+)/m) ?? 0,
    errors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    poolExhausted: number(/^pool exhausted: (\d+)/m) ?? 0,
  };
}

export function wrkInstalled(): boolean {
  return existsSync(WRK);
}

export const wrk: LoadGenerator = {
  name: 'wrk -t1',
  async run(target, { seconds, connections }) {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-wrk-'));
    try {
      const script = join(dir, 'target.lua');
      const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, target.url];
      if (target.headerSets) {
        const file = join(dir, 'headers.tsv');
        writeHeaderFile(file, target.headerSets);
        writeFileSync(script, `${staticPart(target)}\n${PRESIGNED}`);
        args.push('--', file);
      } else {
        writeFileSync(script, staticPart(target));
      }
      const { stdout } = await promisify(execFile)(WRK, args, { maxBuffer: 1 << 20 });
      return parseWrkOutput(stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
