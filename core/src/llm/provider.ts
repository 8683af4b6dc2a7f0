export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmTurn {
  messages: LlmMessage[];
}

export interface LlmResult {
  text: string;
  provider: string;
  model: string;
}

/** One interface for every provider; the host holds the credentials, agents never do. */
export interface LlmProvider {
  name: string;
  complete(turn: LlmTurn, signal?: AbortSignal): Promise<LlmResult>;
}
