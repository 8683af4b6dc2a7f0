import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { trustedProxyProblem } from '../http/index.ts';

/** The checkout's `.data`, whichever directory a process was started from: every entry point finds the same data. */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../../.data', import.meta.url));

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');

const origin = z
  .string()
  .refine((value) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    return !!url && (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  }, 'must be an http(s) origin with no path, query or credentials, e.g. https://agents.example.com')
  .transform((value) => new URL(value).origin);

const port = z.coerce.number().int().min(0).max(65535);

/** base64 (or base64url) of exactly 32 random bytes. */
const masterKey = z.string().refine((value) => decodeKey(value)?.length === 32, 'must be 32 bytes encoded as base64 (openssl rand -base64 32)');

export function decodeKey(value: string): Buffer | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return null;
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

const secret = (min: number) => z.string().min(min, `must be at least ${min} characters`);

/**
 * Every environment variable the service reads. Parsed once at start-up; feature flags are
 * re-read per request through `readFeatureFlags` with the same field schemas.
 */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().regex(/^[A-Za-z0-9.:[\]-]+$/, 'must be a host name or IP address').default('127.0.0.1'),
  PORT: port.default(3000),
  /** Connections a web process holds at most (still below its descriptor limit less a reserve): each open event stream holds one. */
  SERVICE_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(768),
  MONGODB_URI: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://')
    .optional(),
  SERVICE_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  SERVICE_BASE_URL: origin.optional(),
  /** The standalone MCP server's public URL (`https://mcp.example.com/mcp`): a resource OAuth tokens may be bound to. */
  SERVICE_MCP_PUBLIC_URL: z
    .string()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol) && !new URL(value).search && !new URL(value).hash, 'must be an http(s) URL without query or fragment')
    .optional(),
  SERVICE_VENDOR_SCOPE: z
    .string()
    .regex(/^@[a-z0-9][a-z0-9._-]*$/, 'must look like @scope (lowercase npm scope)')
    .default('@local'),
  SERVICE_PRODUCT_NAME: z.string().min(1).max(100).default('Service'),
  SERVICE_MASTER_KEY: masterKey.optional(),
  SERVICE_MASTER_KEYS_PREVIOUS: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []))
    .pipe(z.array(masterKey)),
  SERVICE_SESSION_SECRET: secret(32).optional(),
  SERVICE_BRIDGE_TOKEN: secret(32).optional(),
  SERVICE_A2A_HTTP_ENABLED: booleanFlag,
  /** The A2A gRPC binding's own port (on HOST); unset: no gRPC server. 0 takes any free port (tests). */
  SERVICE_A2A_GRPC_PORT: port.optional(),
  /** PEM files of the gRPC binding's certificate chain and private key: with both, it speaks TLS. */
  SERVICE_A2A_GRPC_TLS_CERT_FILE: z.string().min(1).optional(),
  SERVICE_A2A_GRPC_TLS_KEY_FILE: z.string().min(1).optional(),
  SERVICE_AGUI_EXTERNAL_ENABLED: booleanFlag,
  SERVICE_WIDGET_VERSION: z.string().regex(/^[0-9A-Za-z.+-]{1,40}$/, 'must be a short version string').default('0.1.0'),
  SERVICE_ADMIN_EMAIL: z.string().email().optional(),
  SERVICE_ADMIN_PASSWORD: secret(12).optional(),
  SERVICE_LLM_PROVIDER: z.enum(['scripted', 'openai-compatible', 'anthropic']).default('scripted'),
  SERVICE_LLM_BASE_URL: z.string().url().optional(),
  SERVICE_LLM_API_KEY: z.string().min(1).optional(),
  SERVICE_LLM_MODEL: z.string().min(1).max(200).optional(),
  /** The offline scripted LLM waits this long per turn (demos and tests of long runs). */
  SERVICE_LLM_SCRIPTED_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /** GitHub's REST API (GitHub Enterprise: https://<host>/api/v3); imports download archives from it. */
  SERVICE_GITHUB_API_URL: z
    .string()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http(s) URL such as https://api.github.com')
    .transform((value) => value.replace(/\/+$/, ''))
    .default('https://api.github.com'),
  /** Optional token for private repositories and a higher rate limit; sent only to the API URL. */
  SERVICE_GITHUB_TOKEN: z.string().min(1).optional(),
  /** Whether this process runs the background sync of auto-updating GitHub imports. */
  SERVICE_IMPORT_SYNC_ENABLED: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /** How often each auto-updating GitHub import is checked. */
  SERVICE_IMPORT_SYNC_INTERVAL_MS: z.coerce.number().int().min(200).max(7 * 24 * 3_600_000).default(15 * 60_000),
  /**
   * A tracing UI's address for one trace, with `{traceId}` where the trace id goes
   * (`https://jaeger.example/trace/{traceId}`); the run page links each run's trace there.
   */
  SERVICE_TRACE_UI_URL: z
    .string()
    .refine((value) => value.includes('{traceId}'), 'must contain {traceId}, e.g. https://jaeger.example/trace/{traceId}')
    .refine((value) => {
      const url = URL.canParse(value.replaceAll('{traceId}', '0')) ? new URL(value.replaceAll('{traceId}', '0')) : null;
      return !!url && /^https?:$/.test(url.protocol) && !url.username && !url.password;
    }, 'must be an http(s) URL without credentials')
    .optional(),
  SERVICE_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /**
   * Whether outbound calls (peers, registries, CMS sites, GitHub, LLMs, webhooks) may reach
   * loopback and private addresses; unset: true on the embedded default (no MONGODB_URI, not
   * production), false otherwise.
   */
  SERVICE_OUTBOUND_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1')),
  /**
   * Reverse proxies whose `X-Forwarded-For` names the client (comma-separated addresses and CIDR
   * blocks); empty: the connection's peer is the client and the header is ignored.
   */
  SERVICE_TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []))
    .superRefine((entries, context) => {
      for (const entry of entries) {
        const problem = trustedProxyProblem(entry);
        if (problem) context.addIssue({ code: z.ZodIssueCode.custom, message: `${problem}; list addresses or CIDR blocks, e.g. 127.0.0.1,10.0.0.0/8` });
      }
    }),
  /** The Prometheus scrape endpoint (`GET /metrics`); off unless turned on, and then only with a token. */
  SERVICE_METRICS_PROMETHEUS: z
    .enum(['on', 'off', 'true', 'false', '1', '0'])
    .default('off')
    .transform((v) => v === 'on' || v === 'true' || v === '1'),
  /** The bearer token a scraper presents; a secret (never logged). */
  SERVICE_METRICS_TOKEN: secret(32).optional(),
  /** A file holding that token (a mounted secret), read at start-up instead of SERVICE_METRICS_TOKEN. */
  SERVICE_METRICS_TOKEN_FILE: z.string().min(1).optional(),
  /** Days to keep finished runs with their events; unset keeps them all. */
  SERVICE_RETENTION_RUNS_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  /** Days to keep audit rows; unset keeps them all. */
  SERVICE_RETENTION_AUDIT_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  /** Days to keep finished import and publish jobs and import sync history; unset keeps them all. */
  SERVICE_RETENTION_JOBS_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
});

export type RawEnv = z.infer<typeof envSchema>;

export const featureFlagSchema = envSchema.pick({
  SERVICE_A2A_HTTP_ENABLED: true,
  SERVICE_AGUI_EXTERNAL_ENABLED: true,
});
