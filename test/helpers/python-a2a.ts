import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const VENV = fileURLToPath(new URL('../node_modules/.cache/a2a-python-1.3', import.meta.url));
export const PYTHON = `${VENV}/bin/python`;

/**
 * A venv under node_modules/.cache with the Python A2A SDK (PyPI `a2a-sdk` 1.3, its `grpc` extra
 * for the client's gRPC transport and its `http-server` extra, with uvicorn, for SDK servers),
 * made once; resolves to the SDK's version.
 */
export async function pythonWithSdk(): Promise<string> {
  if (!existsSync(PYTHON)) await run('python3', ['-m', 'venv', VENV]);
  const installed = await run(PYTHON, ['-c', 'import a2a.client, grpc, starlette, sse_starlette, uvicorn, importlib.metadata as m; print(m.version("a2a-sdk"))']).catch(() => null);
  if (!installed?.stdout.startsWith('1.3.')) await run(`${VENV}/bin/pip`, ['install', '--quiet', '--disable-pip-version-check', 'a2a-sdk[grpc,http-server]~=1.3.0', 'uvicorn~=0.34'], { timeout: 300_000 });
  return (await run(PYTHON, ['-c', 'import importlib.metadata as m; print(m.version("a2a-sdk"))'])).stdout.trim();
}
