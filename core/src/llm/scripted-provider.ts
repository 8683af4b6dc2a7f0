import { collect, type LlmProvider, type LlmStreamPart, type LlmTurn, type LlmUsage } from './provider.ts';

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

/**
 * The offline provider used when no LLM is configured: deterministic, no network, named
 * "scripted" wherever a provider is shown. Offered a tool and given edit instructions, it calls
 * the first tool with `{ edits: [...] }`; otherwise it answers with the first sentences of the
 * last user message, marked as scripted. With `usage`, each finish part reports those tokens
 * (a test's stand-in for a metered provider).
 */
export function createScriptedProvider(options: { delayMs?: number; usage?: LlmUsage } = {}): LlmProvider {
  const usage = options.usage ? { usage: { ...options.usage } } : {};
  async function* stream(turn: LlmTurn, signal?: AbortSignal): AsyncGenerator<LlmStreamPart> {
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (signal?.aborted) throw new Error('aborted');
    const last = [...turn.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const edits = parseEditInstructions(last);
    const tool = turn.tools?.[0];
    if (tool && edits.length > 0) {
      yield { type: 'text-delta', text: `[scripted] Applying ${edits.length} edit${edits.length === 1 ? '' : 's'}.` };
      yield { type: 'tool-call', call: { toolCallId: 'scripted-1', toolName: tool.name, input: { edits } } };
      yield { type: 'finish', finishReason: 'tool-calls', ...usage };
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
