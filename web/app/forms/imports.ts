import { z } from 'zod';
import { optionalText, requiredText } from '../schemas/fields.ts';
import { CHAT_MESSAGE_MAX, gitRef, repositoryFolder, repositoryUrl, updatePolicy } from '../schemas/imports.ts';

/**
 * The Import page's forms (GitHub, zip upload, chat drafting) and an imported extension's
 * update forms, built from the field schemas the imports procedures take (schemas/imports.ts).
 */

export const githubImportForm = z.object({
  intent: z.literal('github'),
  url: repositoryUrl,
  ref: gitRef,
  folder: repositoryFolder,
  updatePolicy: updatePolicy.default('manual'),
});

/** A chosen zip of at most `maxBytes` (the server's IMPORT_LIMITS; the browser gets them from the loader). */
export function zipFile(maxBytes: number) {
  const mib = Math.round(maxBytes / 1024 / 1024);
  return z.file({ error: 'Choose a .zip file.' }).max(maxBytes, `The zip file is larger than ${mib} MiB.`);
}

export function zipImportForm(maxBytes: number) {
  return z.object({ intent: z.literal('zip'), file: zipFile(maxBytes) });
}

/**
 * The drafting chat: the draft so far and the conversation travel as JSON in hidden fields
 * (bounded by the upload body limit; the procedure checks their shape), the new message is typed.
 */
const chatState = {
  fields: z.string().max(1_000_000, 'The draft is too long.').optional(),
  messages: z.string().max(2_000_000, 'The conversation is too long: start a new one.').optional(),
};

export const chatTurnForm = z.object({
  intent: z.literal('chat-turn'),
  ...chatState,
  message: requiredText('what the agent should do', CHAT_MESSAGE_MAX),
});

export const chatInstallForm = z.object({
  intent: z.literal('chat-install'),
  ...chatState,
  message: optionalText('a message', CHAT_MESSAGE_MAX),
});

export const chatForm = z.discriminatedUnion('intent', [chatTurnForm, chatInstallForm]);

/** An imported extension: its update policy (GitHub imports only). */
export const updatePolicyForm = z.object({
  intent: z.literal('policy'),
  updatePolicy,
});

/** An imported extension: a new version from a zip file (zip imports only). */
export function zipUpdateForm(maxBytes: number) {
  return z.object({ intent: z.literal('update'), file: zipFile(maxBytes) });
}
