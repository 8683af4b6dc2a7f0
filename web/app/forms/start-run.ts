import { z } from 'zod';
import { runAgent, runPeerId, runText } from '../schemas/runs.ts';

/** Start a run on this instance or on a registered peer (the runs list). */
export const startRunForm = z.object({
  peerId: runPeerId,
  agent: runAgent,
  text: runText,
});
