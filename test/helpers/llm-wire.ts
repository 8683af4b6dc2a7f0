import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local servers speaking the providers' real streaming wire formats, so the real provider code
 * (the AI SDK clients) runs against them. `script` decides each reply; requests are recorded.
 */
export type WireScript = ({ kind: 'text'; chunks: string[] } | { kind: 'tool'; name: string; argumentChunks: string[] } | { kind: 'status'; status: number }) & { usage?: { input: number; output: number } };

/** Tokens a reply reports unless its script says otherwise. */
const DEFAULT_USAGE = { input: 5, output: 3 };

export interface WireServer {
  baseUrl: string;
  requests: Record<string, unknown>[];
  next(script: WireScript): void;
  close(): Promise<void>;
}

async function serve(respond: (script: WireScript, res: http.ServerResponse, request: Record<string, unknown>) => void): Promise<WireServer> {
  const requests: Record<string, unknown>[] = [];
  const queue: WireScript[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body || '{}') as Record<string, unknown>;
      requests.push(request);
      respond(queue.shift() ?? { kind: 'text', chunks: ['(no script)'] }, res, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    next: (script) => void queue.push(script),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function sse(res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/**
 * OpenAI chat completions: `data: {chunk}` lines, tool calls as indexed deltas, then `data: [DONE]`.
 * As OpenAI does, usage comes only when the request asks (`stream_options.include_usage`): one
 * last chunk with empty `choices` and `usage`.
 */
export function startOpenAiWire(): Promise<WireServer> {
  return serve((script, res, request) => {
    if (script.kind === 'status') {
      res.writeHead(script.status, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { message: `status ${script.status}`, type: 'test', code: script.status } }));
    }
    sse(res);
    const chunk = (delta: object, finish: string | null = null) =>
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    if (script.kind === 'text') {
      chunk({ role: 'assistant', content: '' });
      for (const text of script.chunks) chunk({ content: text });
      chunk({}, 'stop');
    } else {
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: script.name, arguments: '' } }] });
      for (const part of script.argumentChunks) chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] });
      chunk({}, 'tool_calls');
    }
    if ((request.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
      const { input, output } = script.usage ?? DEFAULT_USAGE;
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'test-model', choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  });
}

/**
 * Anthropic Messages: typed events (message_start, content_block_*, message_delta, message_stop).
 * As Anthropic does, `message_start` carries the input tokens (and a first output count) and
 * `message_delta` the final, cumulative output tokens.
 */
export function startAnthropicWire(): Promise<WireServer> {
  return serve((script, res) => {
    if (script.kind === 'status') {
      res.writeHead(script.status, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ type: 'error', error: { type: script.status === 429 ? 'rate_limit_error' : 'api_error', message: `status ${script.status}` } }));
    }
    sse(res);
    const { input, output } = script.usage ?? DEFAULT_USAGE;
    const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'test-model', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: input, output_tokens: 1 } } });
    if (script.kind === 'text') {
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      for (const text of script.chunks) event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: output } });
    } else {
      event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: script.name, input: {} } });
      for (const part of script.argumentChunks) event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: part } });
      event('content_block_stop', { index: 0 });
      event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: output } });
    }
    event('message_stop', {});
    res.end();
  });
}
