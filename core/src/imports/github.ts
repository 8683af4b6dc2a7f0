import { DomainError } from '../errors/index.ts';
import { readBytesLimited, type OutboundHttp } from '../http/index.ts';

/** A repository folder at a ref, as an admin names it. */
export interface GithubLocation {
  owner: string;
  repo: string;
  /** Branch, tag or commit; the default branch when absent. */
  ref: string | undefined;
  /** Folder of the package inside the repository; the root when absent. */
  folder: string | undefined;
  /** The repository's web address, recorded as `importedFrom.url`. */
  url: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const REF = /^[A-Za-z0-9][\w./-]{0,199}$/;

/** The web origin repositories of an API live on: github.com for api.github.com, else the API's own (GitHub Enterprise). */
export function githubWebOrigin(apiUrl: string): string {
  const api = new URL(apiUrl);
  return api.hostname === 'api.github.com' ? 'https://github.com' : api.origin;
}

/**
 * Reads `https://<host>/<owner>/<repo>[.git][/tree/<ref>[/<folder>]]`; an explicit ref or folder
 * wins over the one in the URL. With `webOrigin`, the address must be on that host, so what is
 * recorded as `importedFrom.url` is what was downloaded.
 */
export function parseGithubLocation(input: { url: string; ref?: string | undefined; folder?: string | undefined }, webOrigin?: string): GithubLocation {
  const bad = (reason: string) => new DomainError('VALIDATION_FAILED', `repository URL ${reason}`, { details: [{ path: 'url', reason }] });
  if (!URL.canParse(input.url)) throw bad('is not a URL');
  const url = new URL(input.url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad('must be an https:// address');
  if (url.username || url.password) throw bad('must not carry credentials');
  if (webOrigin && url.origin !== webOrigin) throw bad(`must be a repository on ${webOrigin}, the GitHub this service is configured for`);
  const [owner, rawRepo, tree, urlRef, ...rest] = url.pathname.split('/').filter(Boolean);
  const repo = rawRepo?.replace(/\.git$/, '');
  if (!owner || !repo || !NAME.test(owner) || !NAME.test(repo)) throw bad('must name a repository: https://github.com/<owner>/<repo>');
  const ref = input.ref?.trim() || (tree === 'tree' ? urlRef : undefined);
  if (ref !== undefined && (!REF.test(ref) || ref.includes('..'))) throw bad(`has an invalid ref "${ref}"`);
  const folder = (input.folder?.trim() || (tree === 'tree' && rest.length ? rest.join('/') : '')).replace(/^\/+|\/+$/g, '') || undefined;
  return { owner, repo, ref, folder, url: `${url.origin}/${owner}/${repo}` };
}

export interface GithubArchive {
  commitSha: string;
  bytes: Buffer;
}

export interface GithubClient {
  /** The commit the ref points at now (the default branch's head without a ref). */
  resolveCommit(location: GithubLocation): Promise<string>;
  /** The tarball of exactly that commit, as GitHub serves it (one top folder `<owner>-<repo>-<sha7>/`). */
  downloadTarball(location: GithubLocation, commitSha: string, maxBytes: number): Promise<Buffer>;
}

/**
 * GitHub's REST API: `GET /repos/{o}/{r}/commits/{ref}` with the `sha` media type, and
 * `GET /repos/{o}/{r}/tarball/{sha}` (a redirect to the archive host). The token, when set, is
 * only sent to the API origin: the outbound client drops it when the archive redirect leaves it.
 */
export function createGithubClient(options: { apiUrl: string; token?: string | undefined; timeoutMs?: number }, http: OutboundHttp): GithubClient {
  const api = options.apiUrl.replace(/\/+$/, '');
  const headers = (accept: string): Record<string, string> => ({
    accept,
    'x-github-api-version': '2022-11-28',
    'user-agent': 'service-extension-import',
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  });
  const get = async (path: string, accept: string) => {
    const at = `${api}${path}`;
    let response: Response;
    try {
      // The archive answer is a redirect to GitHub's archive host: a small budget, each hop checked.
      response = await http.fetch(at, { headers: headers(accept), maxRedirects: 3, timeoutMs: options.timeoutMs ?? 30_000 });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'OUTBOUND_REFUSED') throw error;
      throw new DomainError('UPSTREAM_FAILED', `GitHub could not be reached at ${api} (${(error as Error).message})`, { cause: error });
    }
    if (response.status === 404) throw new DomainError('NOT_FOUND', `GitHub has no ${path.split('/').slice(2, 4).join('/')} at that ref (or it is private and no token is configured)`);
    if (!response.ok) throw new DomainError('UPSTREAM_FAILED', `GitHub answered ${response.status} for ${path}`);
    return response;
  };
  const repoPath = (l: GithubLocation) => `/repos/${encodeURIComponent(l.owner)}/${encodeURIComponent(l.repo)}`;

  return {
    async resolveCommit(location) {
      const response = await get(`${repoPath(location)}/commits/${encodeURIComponent(location.ref ?? 'HEAD')}`, 'application/vnd.github.sha');
      const sha = (await readBytesLimited(response, 1024, 'commit answer')).toString('utf8').trim();
      if (!/^[0-9a-f]{40}$/.test(sha)) throw new DomainError('UPSTREAM_FAILED', 'GitHub did not answer with a commit sha');
      return sha;
    },
    async downloadTarball(location, commitSha, maxBytes) {
      const response = await get(`${repoPath(location)}/tarball/${commitSha}`, 'application/vnd.github+json');
      return readBytesLimited(response, maxBytes, 'the repository archive');
    },
  };
}
