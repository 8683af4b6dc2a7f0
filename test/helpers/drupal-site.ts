/**
 * A real Drupal for tests: the code base from the archive (or directory) in SERVICE_DRUPAL_ARCHIVE,
 * installed once per code base with the standard profile on SQLite, the CMS-A modules copied into
 * it; then, per test site, a copy of that installed database served by `php -S`, with the modules
 * enabled, Content Moderation's editorial workflow on articles when asked, the tools user and its
 * key, a widget editor and the `_mcp_tools` contract fixture's nodes.
 *
 * Where the code base comes from (docs/drupal-module.md, "Tests on a real Drupal"): CI sets
 * SERVICE_DRUPAL_ARCHIVE to an offline archive of Drupal 10.3.7 with its libraries; with internet,
 * `composer create-project drupal/recommended-project:^10.3 drupal` and
 * SERVICE_DRUPAL_ARCHIVE=$PWD/drupal/web give the same. Without it the real-Drupal tests are
 * skipped, saying so (`drupalSkipReason`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitForOutput } from './child-output.ts';
import { contractFixture, type CmsASite, type SiteRevision } from './cms-a-double.ts';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('./drupal/', import.meta.url));
const MODULE = fileURLToPath(new URL('../../cms-plugins/cms-a/service_widget/', import.meta.url));
const PHP_EXTENSIONS = ['pdo_sqlite', 'gd', 'xml', 'mbstring', 'curl', 'intl'];

export interface DrupalSite extends CmsASite {
  /** The site's node id for a node the contract fixture names ("42", "abc123", "locked"). */
  nid(name: string): string;
  /** The site's URL of an image the fixture names by a made-up URL. */
  mediaUrl(fixtureUrl: string): string;
  /** Fixture names to node ids, and fixture image URLs to the site's, for the contract runner. */
  bindings: { nids: Record<string, string>; urls: Record<string, string> };
  moderated: boolean;
  users: Record<'editor' | 'admin', { name: string; pass: string }>;
  /** Runs PHP on the booted site (`input` is in scope) and answers what it returns. */
  php<T = unknown>(code: string, input?: Record<string, unknown>): Promise<T>;
  /**
   * Drupal's log (dblog) from the given wid on, by default from this test site's start (the
   * installation's own entries, drupal.org being unreachable, are left out): type, severity
   * (0 emergency … 7 debug), message with its variables.
   */
  log(sinceWid?: number): { wid: number; type: string; severity: number; message: string }[];
  /** What `php -S` printed (PHP fatals and warnings that reach no log). */
  serverOutput(): string;
  /** What the site's setup (installing the modules) printed besides its answer. */
  setupOutput: string;
}

/**
 * The tools user's permissions as docs/drupal-module.md lists them for a site owner (its table
 * under "2. The tools user"), for articles: the titles the Permissions page shows.
 */
export function documentedToolsPermissions(moderated: boolean): string[] {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/drupal-module.md', import.meta.url)), 'utf8');
  const section = doc.slice(doc.indexOf('## 2. The tools user'), doc.indexOf('## 3.'));
  const rows = [...section.matchAll(/^\| "([^"]+)" \| ([^|]+) \|$/gm)].map(([, title, when]) => ({ title: title!.replace('<type>', 'Article'), when: when!.trim() }));
  if (rows.length === 0) throw new Error('docs/drupal-module.md has no permission table under "2. The tools user"');
  return rows.filter(({ when }) => (when.startsWith('always') ? true : when.startsWith('with Content Moderation') ? moderated : when.startsWith('without Content Moderation') ? !moderated : false)).map(({ title }) => title);
}

/** The end of a skipped test's or suite's title: why it is skipped; nothing when it runs. */
export const skipNote = (reason: string | undefined): string => (reason ? ` (skipped: ${reason})` : '');

/** Why the real-Drupal tests cannot run here, or undefined when they can. */
export function drupalSkipReason(): string | undefined {
  const source = process.env.SERVICE_DRUPAL_ARCHIVE;
  if (!source) return 'SERVICE_DRUPAL_ARCHIVE is not set: name a Drupal 10.3 code base archive (.tar.xz/.tar.gz) or docroot directory (docs/drupal-module.md, "Tests on a real Drupal")';
  if (!existsSync(source)) return `SERVICE_DRUPAL_ARCHIVE names ${source}, which does not exist`;
  return undefined;
}

async function missingPhpExtensions(): Promise<string[]> {
  const { stdout } = await run('php', ['-m']);
  const loaded = new Set(stdout.split('\n').map((line) => line.trim().toLowerCase()));
  return PHP_EXTENSIONS.filter((extension) => !loaded.has(extension));
}

function treeHash(dir: string, hash = createHash('sha256'), base = dir): ReturnType<typeof createHash> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) treeHash(full, hash, base);
    else hash.update(path.relative(base, full)).update('\0').update(readFileSync(full)).update('\0');
  }
  return hash;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The installed code base for this archive and these modules, built once (under a lock, as test
 * files start in parallel) in the system temp directory and reused by later runs.
 */
export async function drupalCodeBase(): Promise<string> {
  const source = process.env.SERVICE_DRUPAL_ARCHIVE!;
  const stat = statSync(source);
  const key = createHash('sha256')
    .update(`${path.resolve(source)}\0${stat.size}\0${stat.mtimeMs}\0`)
    .update(treeHash(MODULE).digest())
    .update(treeHash(path.join(HERE, 'service_widget_test')).digest())
    .update(readFileSync(path.join(HERE, 'settings.test-sites.php')))
    .digest('hex')
    .slice(0, 16);
  const root = path.join(os.tmpdir(), `service-drupal-${key}`);
  const ready = path.join(root, '.service-ready');
  const lock = `${root}.lock`;
  for (const deadline = Date.now() + 300_000; !existsSync(ready); ) {
    try {
      mkdirSync(lock);
    } catch {
      if (Date.now() > deadline) throw new Error(`a Drupal code base is still being built under ${lock}; remove the lock if no test run is building it`);
      await sleep(500);
      continue;
    }
    try {
      if (!existsSync(ready)) await buildCodeBase(source, root, ready);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  utimesSync(root, new Date(), new Date());
  return root;
}

async function buildCodeBase(source: string, root: string, ready: string): Promise<void> {
  const missing = await missingPhpExtensions();
  if (missing.length) throw new Error(`PHP lacks the extensions Drupal needs: ${missing.join(', ')} (Debian: php-sqlite3 php-gd php-xml php-mbstring php-curl php-intl; scripts/install-test-deps.sh installs them)`);
  // Code bases of earlier module versions (165 MB each) go once no run has used them for a day.
  for (const entry of readdirSync(path.dirname(root))) {
    const other = path.join(path.dirname(root), entry);
    if (/^service-drupal-[0-9a-f]{16}$/.test(entry) && other !== root && Date.now() - statSync(other).mtimeMs > 86_400_000) rmSync(other, { recursive: true, force: true });
  }
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  try {
    if (statSync(source).isDirectory()) cpSync(source, root, { recursive: true });
    else await run('tar', ['-xf', source, '-C', root], { maxBuffer: 1 << 24 });
    const custom = path.join(root, 'modules/custom');
    mkdirSync(custom, { recursive: true });
    cpSync(MODULE, path.join(custom, 'service_widget'), { recursive: true, filter: (file) => !file.includes(`${path.sep}node_modules`) });
    cpSync(path.join(HERE, 'service_widget_test'), path.join(custom, 'service_widget_test'), { recursive: true });
    await run('php', ['-d', 'memory_limit=512M', 'core/scripts/drupal', 'install', 'standard', '--site-name', 'Drupal test site', '-n'], { cwd: root, maxBuffer: 1 << 24, timeout: 180_000 });
    const settings = path.join(root, 'sites/default/settings.php');
    await run('chmod', ['u+w', path.dirname(settings), settings]);
    appendFileSync(settings, `\nrequire ${JSON.stringify(path.join(HERE, 'settings.test-sites.php'))};\n`);
    writeFileSync(ready, new Date().toISOString());
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** A running test site: a copy of the installed database under `php -S`, set up for the tests. */
export async function startDrupal(options: { moderation?: boolean } = {}): Promise<DrupalSite> {
  const root = await drupalCodeBase();
  const id = randomBytes(6).toString('hex');
  const siteDir = path.join(root, 'sites/test', id);
  mkdirSync(path.join(siteDir, 'files'), { recursive: true });
  mkdirSync(path.join(siteDir, 'private'), { recursive: true });
  cpSync(path.join(root, 'sites/default/files/.sqlite'), path.join(siteDir, 'db.sqlite'));
  const env = { ...process.env, SERVICE_DRUPAL_SITE: id };
  const server: ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream } = spawn(
    'php',
    ['-d', 'memory_limit=512M', '-d', 'apc.enabled=0', '-S', '127.0.0.1:0', '.ht.router.php'],
    { cwd: root, env: { ...env, PHP_CLI_SERVER_WORKERS: '3' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  ) as never;
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      // php -S leaves its workers running when the master stops: they share its process group.
      process.kill(-server.pid!, 'SIGKILL');
      await exited;
    }
    rmSync(siteDir, { recursive: true, force: true });
  };
  try {
    const { value: siteUrl, output } = await waitForOutput(server as never, /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/, 'php -S (Drupal)', 30_000);
    const php = async <T>(script: string, input: Record<string, unknown>): Promise<T & { output: string }> => {
      const child = spawn('php', ['-d', 'memory_limit=512M', path.join(HERE, script)], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdin.end(JSON.stringify({ ...input, siteUrl }));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      const json = stdout.slice(stdout.indexOf('{'));
      if (code !== 0 || !json) throw new Error(`${script} on the Drupal test site exited with ${code}:\n${stdout}\n${stderr}`);
      return { ...(JSON.parse(json) as T), output: `${stdout.slice(0, stdout.indexOf('{'))}${stderr}` };
    };
    const database = () => new DatabaseSync(path.join(siteDir, 'db.sqlite'), { readOnly: true, timeout: 10_000 });
    const query = <T>(sql: string, ...params: (string | number)[]): T[] => {
      const db = database();
      try {
        return db.prepare(sql).all(...params) as T[];
      } finally {
        db.close();
      }
    };
    // The installation's own log entries (drupal.org unreachable) are not this site's.
    const firstWid = (query<{ wid: number | null }>('SELECT MAX(wid) AS wid FROM watchdog')[0]!.wid ?? 0) + 1;
    const { seed } = contractFixture();
    const setup = await php<{ nids: Record<string, string>; toolsKey: string; siteName: string; users: DrupalSite['users'] }>('setup-site.php', { moderation: options.moderation === true, seed, toolsPermissions: documentedToolsPermissions(options.moderation === true) });
    const urls = Object.fromEntries(
      seed.flatMap((item) => (item.fields.media ?? []).map((image) => [image.url, `${siteUrl}/sites/test/${id}/files/${path.posix.basename(new URL(image.url).pathname)}`])),
    );
    const nid = (name: string) => setup.nids[name] ?? name;
    const revisionsOf = (name: string): (SiteRevision & { isDefault: boolean })[] =>
      query<{ vid: number; status: number; title: string; body: string | null; is_default: number }>(
        `SELECT r.vid, r.status, r.title, b.body_value AS body, (n.vid = r.vid) AS is_default
           FROM node_field_revision r JOIN node n ON n.nid = r.nid
           LEFT JOIN node_revision__body b ON b.revision_id = r.vid AND b.langcode = r.langcode
          WHERE r.nid = ? AND r.default_langcode = 1 ORDER BY r.vid`,
        Number(nid(name)),
      ).map((row) => ({ revisionId: row.vid, status: row.status === 1 ? 'published' : 'draft', title: row.title, body: row.body ?? '', isDefault: row.is_default === 1 }));
    const strip = ({ isDefault: _, ...revision }: SiteRevision & { isDefault: boolean }): SiteRevision => revision;
    return {
      siteUrl,
      key: setup.toolsKey,
      siteName: setup.siteName,
      moderated: options.moderation === true,
      users: setup.users,
      bindings: { nids: setup.nids, urls },
      nid,
      mediaUrl: (url) => urls[url] ?? url,
      // Visitors see the default revision when it is published.
      published: (name) => {
        const current = revisionsOf(name).find((r) => r.isDefault && r.status === 'published');
        return current ? strip(current) : undefined;
      },
      revisions: (name) => revisionsOf(name).map(strip),
      php: async <T>(code: string, input: Record<string, unknown> = {}) => (await php<{ result: T }>('eval.php', { ...input, code })).result,
      log: (sinceWid = firstWid) =>
        query<{ wid: number; type: string; severity: number; message: string; variables: Uint8Array | string | null }>('SELECT wid, type, severity, message, variables FROM watchdog WHERE wid >= ? ORDER BY wid', sinceWid).map(({ variables, ...row }) => ({
          ...row,
          message: `${row.message} ${typeof variables === 'string' ? variables : variables ? Buffer.from(variables).toString('utf8') : ''}`.trim(),
        })),
      serverOutput: output,
      setupOutput: setup.output,
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
