import { z } from 'zod';
import { httpUrl, optionalText, requiredText } from './fields.ts';

export const UPDATE_POLICIES = ['manual', 'auto'] as const;

/** manual: an admin presses Update; auto: the service follows the ref in the background. */
export const updatePolicy = z.enum(UPDATE_POLICIES, { error: 'Choose manual or auto.' });

export const repositoryUrl = httpUrl('the repository URL');
export const gitRef = optionalText('a branch, tag or commit', 200);
export const repositoryFolder = optionalText('a folder', 300);

/** One message of the drafting chat (the tRPC procedure takes up to 50 of them). */
export const CHAT_MESSAGE_MAX = 20_000;
export const chatMessage = requiredText('a message', CHAT_MESSAGE_MAX);
