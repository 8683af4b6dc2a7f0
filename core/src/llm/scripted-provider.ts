import { collect, type LlmMessage, type LlmProvider, type LlmStreamPart, type LlmTurn, type LlmUsage } from './provider.ts';

export interface ScriptedEdit {
  op: 'set' | 'replace' | 'append';
  field: string;
  value?: string;
  find?: string;
}

const QUOTED = String.raw`"((?:[^"\\]|\\.)*)"`;
const FIELD = String.raw`([A-Za-z_][\w.]*)`;
const PATTERNS: [RegExp, (m: RegExpExecArray) => ScriptedEdit][] = [
  [new RegExp(String.raw`^set (?:the )?${FIELD} to ${QUOTED}$`, 'i'), (m) => ({ op: 'set', field: m[1]!, value: unescape(m[2]!) })],
  [new RegExp(String.raw`^replace ${QUOTED} with ${QUOTED} in (?:the )?${FIELD}$`, 'i'), (m) => ({ op: 'replace', field: m[3]!, find: unescape(m[1]!), value: unescape(m[2]!) })],
  [new RegExp(String.raw`^append ${QUOTED} to (?:the )?${FIELD}$`, 'i'), (m) => ({ op: 'append', field: m[2]!, value: unescape(m[1]!) })],
];

function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/**
 * The edit instructions the offline provider understands, one per line or separated by `;`:
 *   set <field> to "<value>"
 *   replace "<old>" with "<new>" in <field>
 *   append "<text>" to <field>
 */
export function parseEditInstructions(text: string): ScriptedEdit[] {
  const edits: ScriptedEdit[] = [];
  for (const raw of text.split(/\n|;/)) {
    const line = raw.trim().replace(/[.!]$/, '');
    for (const [pattern, build] of PATTERNS) {
      const match = pattern.exec(line);
      if (match) {
        edits.push(build(match));
        break;
      }
    }
  }
  return edits;
}

/** What the widget suggests typing while the offline provider answers: its phrases, on the CMS's own fields. */
export function scriptedPhrasesHint(fields: readonly string[]): string {
  const [first = 'title', second = first, third = second] = fields;
  return `Offline assistant. Try: set ${first} to "…"; replace "old" with "new" in ${second}; append "…" to ${third}`;
}

/** `use <tool> with <JSON object>`: a tool call the offline provider makes when it is offered that tool. */
const TOOL_DIRECTIVE = /^use ([A-Za-z0-9_-]{1,64}) with (\{.*\})\s*$/i;
/** `answer with <JSON object>`: the offline provider's structured answer (its call of the tool it must call). */
const ANSWER_DIRECTIVE = /^answer with (\{.*\})\s*$/i;

/** The tool calls a message asks the offline provider for, one directive a line, in order (lines that are not one, or whose JSON does not parse, are not). */
export function parseToolDirectives(text: string): { toolName: string; input: Record<string, unknown> }[] {
  return text.split('\n').flatMap((line) => {
    const match = TOOL_DIRECTIVE.exec(line.trim());
    const input = match ? parseObject(match[2]!) : null;
    return match && input ? [{ toolName: match[1]!, input }] : [];
  });
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A value of the JSON Schema's shape, made from nothing: what the offline provider answers a structured step with when told no answer. */
function skeletonOf(schema: unknown, text: string): unknown {
  const node = (schema ?? {}) as { type?: unknown; properties?: Record<string, unknown>; required?: string[]; enum?: unknown[]; items?: unknown };
  if (Array.isArray(node.enum) && node.enum.length) return node.enum[0];
  switch (Array.isArray(node.type) ? node.type[0] : node.type) {
    case 'object':
      return Object.fromEntries(Object.entries(node.properties ?? {}).map(([key, value]) => [key, skeletonOf(value, text)]));
    case 'array':
      return [];
    case 'boolean':
      return true;
    case 'number':
    case 'integer':
      return 0;
    case 'null':
      return null;
    default:
      return text;
  }
}

const short = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? 'null';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/**
 * The offline provider used when no LLM is configured: deterministic, no network, named
 * "scripted" wherever a provider is shown. It reads the last user message:
 * - offered a tool and given edit instructions, it calls the first tool with `{ edits: [...] }`;
 * - offered tools, each line `use <tool> with {…}` naming one of them is a call, made one a turn
 *   in order (the calls already in the turn are counted), and once they are made it answers
 *   with what the last tool returned; a turn that must call one tool (a structured answer) calls
 *   it with the line `answer with {…}`, or with a value of the tool's schema made up from the text;
 * - otherwise it answers with the first sentences of the message, marked as scripted.
 * With `usage`, each finish part reports those tokens (a test's stand-in for a metered provider).
 */
export function createScriptedProvider(options: { delayMs?: number; usage?: LlmUsage } = {}): LlmProvider {
  const usage = options.usage ? { usage: { ...options.usage } } : {};
  async function* stream(turn: LlmTurn, signal?: AbortSignal): AsyncGenerator<LlmStreamPart> {
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (signal?.aborted) throw new Error('aborted');
    const lastUser = turn.messages.findLastIndex((m) => m.role === 'user');
    const last = lastUser >= 0 ? (turn.messages[lastUser] as { content: string }).content : '';
    const since = turn.messages.slice(lastUser + 1);
    const tools = turn.toolChoice === 'none' ? [] : (turn.tools ?? []);
    const call = (toolName: string, input: unknown, text = ''): LlmStreamPart[] => [
      ...(text ? [{ type: 'text-delta' as const, text }] : []),
      { type: 'tool-call', call: { toolCallId: `scripted-${since.length + 1}`, toolName, input } },
      { type: 'finish', finishReason: 'tool-calls', ...usage },
    ];
    const forced = typeof turn.toolChoice === 'object' ? tools.find((tool) => tool.name === (turn.toolChoice as { tool: string }).tool) : undefined;
    // Directives are read from the latest user message that has any (a loop may add user messages of its own after the prompt).
    const directed = [...turn.messages].reverse().find((m): m is LlmMessage => m.role === 'user' && m.content.split('\n').some((line) => TOOL_DIRECTIVE.test(line.trim()) || ANSWER_DIRECTIVE.test(line.trim())))?.content ?? last;
    if (forced) {
      const answer = directed.split('\n').map((line) => ANSWER_DIRECTIVE.exec(line.trim())).find(Boolean);
      const given = answer ? parseObject(answer[1]!) : null;
      const results = since.filter((m) => m.role === 'tool');
      const said = results.length ? short(results.at(-1)!.result.type === 'json' ? (results.at(-1)!.result as { value: unknown }).value : results.at(-1)!.result) : last.slice(0, 200);
      return yield* call(forced.name, given ?? skeletonOf(forced.parameters, `[scripted] ${said}`));
    }
    const edits = parseEditInstructions(last);
    if (tools[0] && edits.length > 0 && since.length === 0) {
      return yield* call(tools[0].name, { edits }, `[scripted] Applying ${edits.length} edit${edits.length === 1 ? '' : 's'}.`);
    }
    const made = since.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).length;
    const offered = new Set(tools.map((tool) => tool.name));
    const next = parseToolDirectives(directed).filter((directive) => offered.has(directive.toolName))[made];
    if (next) return yield* call(next.toolName, next.input);
    const results = since.filter((m) => m.role === 'tool');
    if (results.length > 0) {
      const answered = results.at(-1)!;
      const what = answered.result.type === 'json' ? `answered: ${short(answered.result.value)}` : answered.result.type === 'denied' ? `was not allowed${answered.result.reason ? `: ${answered.result.reason}` : ''}` : `failed: ${answered.result.message}`;
      yield { type: 'text-delta', text: `[scripted] ${answered.toolName} ${what}` };
      yield { type: 'finish', finishReason: 'stop', ...usage };
      return;
    }
    const sentences = last.replace(/\s+/g, ' ').trim().match(/[^.!?]+[.!?]?/g) ?? [''];
    yield { type: 'text-delta', text: `[scripted] ${sentences.slice(0, 2).map((s) => s.trim()).join(' ').slice(0, 400)}` };
    yield { type: 'finish', finishReason: 'stop', ...usage };
  }
  const provider: LlmProvider = {
    name: 'scripted',
    model: 'scripted-v1',
    stream: (turn, signal) => stream(turn, signal),
    complete: (turn, signal) => collect(provider, turn, signal),
  };
  return provider;
}
