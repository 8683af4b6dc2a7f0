import { randomUUID } from 'node:crypto';
import { Message, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';

/** A SendMessageRequest of @a2a-js/sdk 1.x carrying one user text part (and `extra` message fields). */
export const sdkRequest = (text: string, extra: Record<string, unknown> = {}): SendMessageRequest => ({
  tenant: '',
  message: Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra }),
  metadata: undefined,
  configuration: undefined,
});

/** The text of a task's artifacts, joined. */
export const artifactText = (task: Task) => task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []))).join('');

/** Every StreamResponse of a stream, once it ends. */
export async function collectStream(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of stream) out.push(event);
  return out;
}
