import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar';

/**
 * A local stand-in for GitHub's REST API, speaking the same wire format the importer uses:
 *   GET /repos/{owner}/{repo}/commits/{ref}   (Accept: application/vnd.github.sha → the sha as text)
 *   GET /repos/{owner}/{repo}/tarball/{ref}   → 302 to the archive host
 *   GET /codeload/{owner}/{repo}/legacy.tar.gz/{sha} → a gzipped tarball with a pax global
 *     header carrying the commit and one top folder `{owner}-{repo}-{sha7}/`, as GitHub's are.
 */
export interface GithubDouble {
  /** Use as SERVICE_GITHUB_API_URL. */
  apiUrl: string;
  /** Records a commit with these files and returns its sha. */
  commit(owner: string, repo: string, files: Record<string, string>): string;
  /** Points a branch (or tag) at a commit. */
  setRef(owner: string, repo: string, ref: string, sha: string): void;
  /** Every request, in order. */
  requests: { at: number; method: string; path: string }[];
  /** Answers the next N archive downloads with 502, as GitHub does on a bad day. */
  failNextDownloads(count: number): void;
  close(): Promise<void>;
}

export async function startGithubDouble(): Promise<GithubDouble> {
  const commits = new Map<string, { owner: string; repo: string; files: Record<string, string> }>();
  const refs = new Map<string, string>();
  const requests: GithubDouble['requests'] = [];
  let counter = 0;
  let failingDownloads = 0;

  async function tarball(owner: string, repo: string, sha: string, files: Record<string, string>): Promise<Buffer> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'github-double-'));
    const top = `${owner}-${repo}-${sha.slice(0, 7)}`;
    try {
      for (const [name, text] of Object.entries(files)) {
        await mkdir(path.join(dir, top, path.dirname(name)), { recursive: true });
        await writeFile(path.join(dir, top, name), text);
      }
      const chunks: Buffer[] = [];
      for await (const chunk of tar.c({ cwd: dir, portable: true }, [top])) chunks.push(chunk as Buffer);
      const globalHeader = new tar.Pax({ comment: sha }, true).encode();
      return gzipSync(Buffer.concat([globalHeader, ...chunks]));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ at: Date.now(), method: req.method ?? 'GET', path: url.pathname });
    const send = (status: number, body: string | Buffer, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    const resolve = (owner: string, repo: string, ref: string) => (/^[0-9a-f]{40}$/.test(ref) && commits.has(ref) ? ref : refs.get(`${owner}/${repo}#${ref}`));

    let match = /^\/repos\/([^/]+)\/([^/]+)\/commits\/(.+)$/.exec(url.pathname);
    if (match) {
      const [, owner, repo, ref] = match as unknown as [string, string, string, string];
      const sha = resolve(owner, repo, decodeURIComponent(ref));
      if (!sha) return send(404, JSON.stringify({ message: 'No commit found for SHA: ' + ref }));
      if (req.headers.accept === 'application/vnd.github.sha') return send(200, sha, 'application/vnd.github.sha');
      return send(200, JSON.stringify({ sha }));
    }
    match = /^\/repos\/([^/]+)\/([^/]+)\/tarball\/(.+)$/.exec(url.pathname);
    if (match) {
      const [, owner, repo, ref] = match as unknown as [string, string, string, string];
      const sha = resolve(owner, repo, decodeURIComponent(ref));
      if (!sha) return send(404, JSON.stringify({ message: 'Not Found' }));
      res.writeHead(302, { location: `${apiUrl}/codeload/${owner}/${repo}/legacy.tar.gz/${sha}` });
      return res.end();
    }
    match = /^\/codeload\/([^/]+)\/([^/]+)\/legacy\.tar\.gz\/([0-9a-f]{40})$/.exec(url.pathname);
    if (match) {
      const [, owner, repo, sha] = match as unknown as [string, string, string, string];
      const commit = commits.get(sha);
      if (!commit || commit.owner !== owner || commit.repo !== repo) return send(404, 'Not Found', 'text/plain');
      if (failingDownloads > 0) {
        failingDownloads--;
        return send(502, 'Bad Gateway', 'text/plain');
      }
      tarball(owner, repo, sha, commit.files).then(
        (bytes) => send(200, bytes, 'application/x-gzip'),
        (error: Error) => send(500, error.message, 'text/plain'),
      );
      return;
    }
    send(404, JSON.stringify({ message: 'Not Found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiUrl,
    requests,
    commit(owner, repo, files) {
      const sha = createHash('sha1').update(`${owner}/${repo}#${++counter}#${JSON.stringify(files)}`).digest('hex');
      commits.set(sha, { owner, repo, files });
      return sha;
    },
    failNextDownloads(count) {
      failingDownloads = count;
    },
    setRef(owner, repo, ref, sha) {
      refs.set(`${owner}/${repo}#${ref}`, sha);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The files of an extension package (package.json + flow.json [+ LICENSE]) for a commit or a zip. */
export function packageFiles(options: { name: string; version: string; license?: string | null; licenseText?: string; flow?: Record<string, unknown>; dependencies?: Record<string, string>; folder?: string }): Record<string, string> {
  const slug = options.name.split('/')[1]!;
  const at = (file: string) => (options.folder ? `${options.folder}/${file}` : file);
  const manifest = {
    name: options.name,
    version: options.version,
    description: `The ${slug} agent, version ${options.version}.`,
    ...(options.license === null ? {} : { license: options.license ?? 'MIT' }),
    service: { kind: 'agent', flow: 'flow.json', agentDependencies: options.dependencies ?? {} },
  };
  const flow = options.flow ?? {
    id: slug,
    name: `FAQ ${options.version}`,
    description: 'Answers questions from a FAQ.',
    tags: ['faq'],
    type: 'leaf',
    instructions: 'Answer from the FAQ only.',
    steps: [{ kind: 'llm', id: 'answer', prompt: 'Question: {{input}}' }],
  };
  return {
    [at('package.json')]: JSON.stringify(manifest, null, 2),
    [at('flow.json')]: JSON.stringify(flow, null, 2),
    ...(options.licenseText ? { [at('LICENSE')]: options.licenseText } : {}),
    'README.md': '# A repository with an extension package\n',
  };
}
