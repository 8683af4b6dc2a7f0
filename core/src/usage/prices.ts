import type { Actor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import type { StepLlmCall } from '../runs/index.ts';
import type { Settings } from '../settings/index.ts';

/** The `settings` document holding the operator's LLM price table. */
export const LLM_PRICES_SETTING = 'llm.prices';

/** What one model costs, in US dollars per million tokens. */
export interface ModelPrice {
  /** The model id as the provider is configured with it (`SERVICE_LLM_MODEL`), matched exactly. */
  model: string;
  inputPerMillion: number;
  outputPerMillion: number;
}

const MAX_ROWS = 200;

/** A stored table read back as it was written, rows that are not well formed left out. */
function wellFormed(value: unknown): ModelPrice[] {
  if (!Array.isArray(value)) return [];
  return value.filter((row): row is ModelPrice => {
    const r = row as Partial<ModelPrice> | null;
    return typeof r?.model === 'string' && isPrice(r.inputPerMillion) && isPrice(r.outputPerMillion);
  });
}

const isPrice = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** A call's cost under `table`, or the call unchanged when its model has no price. */
export function priced(call: StepLlmCall, table: readonly ModelPrice[]): StepLlmCall {
  const price = table.find((row) => row.model === call.model);
  if (!price) return call;
  // Rounded to a millionth of a cent: sums of many calls stay exact enough and print cleanly.
  const costUsd = Math.round(((call.inputTokens * price.inputPerMillion + call.outputTokens * price.outputPerMillion) / 1_000_000) * 1e8) / 1e8;
  return { ...call, costUsd };
}

/**
 * The operator's price table (USD per million input and output tokens, per model), one settings
 * document an admin edits. Read through the settings' one-second cache, so the executor prices
 * every call without a query each time; a change applies within a second everywhere.
 */
export function createPriceTable(deps: { settings: Settings }) {
  async function read(): Promise<ModelPrice[]> {
    return wellFormed(await deps.settings.get<unknown>(LLM_PRICES_SETTING));
  }

  async function set(actor: Actor, rows: ModelPrice[]): Promise<ModelPrice[]> {
    if (rows.length > MAX_ROWS) throw new DomainError('VALIDATION_FAILED', `At most ${MAX_ROWS} prices`);
    const seen = new Set<string>();
    for (const row of rows) {
      if (!row.model.trim() || row.model.length > 200) throw new DomainError('VALIDATION_FAILED', 'Each price names a model (at most 200 characters)');
      if (!isPrice(row.inputPerMillion) || !isPrice(row.outputPerMillion)) throw new DomainError('VALIDATION_FAILED', `The prices of ${row.model} must be numbers of 0 or more`);
      if (seen.has(row.model)) throw new DomainError('VALIDATION_FAILED', `${row.model} is priced twice`);
      seen.add(row.model);
    }
    const table = rows.map((row) => ({ model: row.model.trim(), inputPerMillion: row.inputPerMillion, outputPerMillion: row.outputPerMillion }));
    await deps.settings.set(actor, LLM_PRICES_SETTING, table);
    return table;
  }

  /** The calls with their costs under the current table. */
  async function price(calls: StepLlmCall[]): Promise<StepLlmCall[]> {
    if (calls.length === 0) return calls;
    const table = await read();
    return calls.map((call) => priced(call, table));
  }

  return { read, set, price };
}

export type PriceTable = ReturnType<typeof createPriceTable>;
