import { DomainError } from '../../errors/index.ts';
import type { OutboundHttp } from '../../http/index.ts';

/** A post as read with `context=edit`: raw field values, not rendered HTML. */
export interface CmsBPost {
  id: number;
  status: string;
  title: string;
  content: string;
  excerpt: string;
  slug: string;
  link: string;
  modified: string;
  meta: Record<string, unknown>;
}

interface RawPost {
  id: number;
  status: string;
  slug: string;
  link: string;
  modified: string;
  title: { raw?: string; rendered: string };
  content: { raw?: string; rendered: string };
  excerpt: { raw?: string; rendered: string };
  meta?: Record<string, unknown>;
}

const toPost = (raw: RawPost): CmsBPost => ({
  id: raw.id,
  status: raw.status,
  slug: raw.slug,
  link: raw.link,
  modified: raw.modified,
  title: raw.title.raw ?? raw.title.rendered,
  content: raw.content.raw ?? raw.content.rendered,
  excerpt: raw.excerpt.raw ?? raw.excerpt.rendered,
  meta: Array.isArray(raw.meta) ? {} : (raw.meta ?? {}),
});

/**
 * WordPress REST API v2 with an application password over HTTP basic. Errors keep WordPress's
 * code and message (e.g. `rest_post_invalid_id`), never the credential. With `idempotencyKey`
 * (an agent's tool call), each write carries `Idempotency-Key: <key>.<n>`, its place among the
 * call's writes: the plugin answers a write it saw under that key with the first answer, so a call
 * made again after a crash writes nothing twice.
 */
export function createCmsBClient(site: { siteUrl: string; username: string; applicationPassword: string }, http: OutboundHttp, options: { idempotencyKey?: string } = {}) {
  const authorization = `Basic ${Buffer.from(`${site.username}:${site.applicationPassword}`).toString('base64')}`;
  let writes = 0;

  async function call<T>(method: string, path: string, body?: unknown, init: { headers?: Record<string, string>; raw?: Blob } = {}): Promise<T> {
    let response: Response;
    const keyed: Record<string, string> = options.idempotencyKey && method !== 'GET' ? { 'idempotency-key': `${options.idempotencyKey}.${++writes}` } : {};
    try {
      response = await http.fetch(`${site.siteUrl}/wp-json/wp/v2${path}`, {
        method,
        headers: { authorization, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...keyed, ...init.headers },
        body: init.raw ?? (body !== undefined ? JSON.stringify(body) : undefined),
      });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'OUTBOUND_REFUSED') throw error;
      throw new DomainError('UPSTREAM_FAILED', `WordPress at ${site.siteUrl} is unreachable`, { cause: error });
    }
    const payload = (await response.json().catch(() => ({}))) as T & { code?: string; message?: string };
    if (!response.ok) {
      const code = response.status === 404 ? 'NOT_FOUND' : response.status === 401 || response.status === 403 ? 'FORBIDDEN' : response.status === 400 ? 'VALIDATION_FAILED' : 'UPSTREAM_FAILED';
      throw new DomainError(code, `WordPress ${method} ${path.split('?')[0]}: ${payload.message ?? response.status} (${payload.code ?? response.status})`);
    }
    return payload;
  }

  return {
    me: () => call<{ id: number; slug: string; name: string }>('GET', '/users/me?context=edit'),
    getPost: async (id: number) => toPost(await call<RawPost>('GET', `/posts/${id}?context=edit`)),
    listPosts: async (query: { status?: string; search?: string; perPage?: number; orderby?: string }) => {
      const params = new URLSearchParams({ context: 'edit', per_page: String(query.perPage ?? 10), status: query.status ?? 'any', orderby: query.orderby ?? 'date' });
      if (query.search) params.set('search', query.search);
      return (await call<RawPost[]>('GET', `/posts?${params}`)).map(toPost);
    },
    createPost: async (fields: Record<string, unknown>) => toPost(await call<RawPost>('POST', '/posts?context=edit', fields)),
    updatePost: async (id: number, fields: Record<string, unknown>) => toPost(await call<RawPost>('POST', `/posts/${id}?context=edit`, fields)),
    deletePost: (id: number, force: boolean) => call<{ deleted?: boolean; previous?: RawPost; id?: number; status?: string }>('DELETE', `/posts/${id}?force=${force}`),
    uploadMedia: (filename: string, mimeType: string, bytes: Buffer) =>
      call<{ id: number; source_url: string; mime_type: string }>('POST', '/media', undefined, {
        headers: { 'content-type': mimeType, 'content-disposition': `attachment; filename="${filename.replace(/["\r\n]/g, '')}"` },
        raw: new Blob([new Uint8Array(bytes)]),
      }),
  };
}

export type CmsBClient = ReturnType<typeof createCmsBClient>;
