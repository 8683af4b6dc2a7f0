import { z } from 'zod';
import { requiredText, tooLong } from './fields.ts';

/** A skill id (an agent's npm package name, at most 200 characters as the runs procedures take it). */
export const runAgent = requiredText('the agent (its skill id)', 200);

/** The text the run starts with. */
export const runText = requiredText('the input', 20_000);

/** The registered peer to run on; absent runs on this instance. */
export const runPeerId = z.string().trim().max(63, tooLong('the peer id', 63)).optional();
