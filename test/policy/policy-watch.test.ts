// Polling the policy files (GATEWAY_POLICIES_POLL_SECONDS): a change of a file's content, a new
// file, or a Kubernetes-style update (the files are symlinks into a directory that a symlink swap
// replaces) reloads once; nothing changed, files that are not policies, or a directory that cannot
// be read reload nothing. Each look is taken by hand (check()), not by waiting for the timer.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { PolicyPoller } from '../../gateway/policy/policy-watch.js';

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-policy-watch-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a changed, added or removed policy file reloads once; anything else does not', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'a.yaml'), 'routes: []\n');
  let reloads = 0;
  const poller = new PolicyPoller(dir, () => reloads++);
  poller.check();
  t.equal(reloads, 0, 'unchanged');
  writeFileSync(join(dir, 'notes.txt'), 'not a policy');
  poller.check();
  t.equal(reloads, 0, 'a file that is not a policy');
  writeFileSync(join(dir, 'a.yaml'), 'routes: [1]\n');
  poller.check();
  poller.check();
  t.equal(reloads, 1, 'a changed file, once');
  writeFileSync(join(dir, 'b.yml'), 'x: 1\n');
  poller.check();
  t.equal(reloads, 2, 'an added file');
  rmSync(join(dir, 'b.yml'));
  poller.check();
  t.equal(reloads, 3, 'a removed file');
  rmSync(dir, { recursive: true });
  poller.check();
  t.equal(reloads, 3, 'a directory that cannot be read reloads nothing');
});

t.test('a ConfigMap-style update (a symlink swap) is seen', async (t) => {
  const root = tempDir(t);
  const mount = join(root, 'policies');
  mkdirSync(mount);
  const version = (name: string, text: string) => {
    mkdirSync(join(mount, name));
    writeFileSync(join(mount, name, 'public.yaml'), text);
  };
  version('..v1', 'routes: [v1]\n');
  symlinkSync('..v1', join(mount, '..data'));
  symlinkSync('..data/public.yaml', join(mount, 'public.yaml'));
  let reloads = 0;
  const poller = new PolicyPoller(mount, () => reloads++);
  version('..v2', 'routes: [v2]\n');
  symlinkSync('..v2', join(mount, '..data_tmp'));
  renameSync(join(mount, '..data_tmp'), join(mount, '..data'));
  poller.check();
  t.equal(reloads, 1, 'the new version is seen through the unchanged file symlink');
});
