import { DRAFT_FIELDS, type DraftFields } from '@service/core/imports';
import { IMPORT_LIMITS } from '@service/core/archive';
import { z } from 'zod';
import { chatMessage, gitRef, repositoryFolder, repositoryUrl, updatePolicy } from '../../schemas/imports.ts';
import { adminProcedure, router } from '../init.server.ts';

const objectId = z.string().regex(/^[a-f0-9]{24}$/, 'not an id');
const draftFields = z.object(Object.fromEntries(DRAFT_FIELDS.map((f) => [f, z.string().max(20_000)])) as Record<keyof DraftFields, z.ZodString>);
/** A zip as base64: at most the archive limit once decoded. */
const zipUpload = z.object({
  fileName: z.string().min(1).max(200),
  contentBase64: z.string().max(Math.ceil((IMPORT_LIMITS.maxArchiveBytes * 4) / 3) + 4, `the zip is over ${IMPORT_LIMITS.maxArchiveBytes} bytes`),
});
const decode = (upload: z.infer<typeof zipUpload>) => ({ fileName: upload.fileName, bytes: Buffer.from(upload.contentBase64, 'base64') });

export const importsRouter = router({
  jobs: adminProcedure.query(({ ctx }) => ctx.services.imports.jobs.list()),
  job: adminProcedure.input(z.object({ id: objectId })).query(({ ctx, input }) => ctx.services.imports.jobs.get(input.id)),

  fromGithub: adminProcedure
    .input(z.object({ url: repositoryUrl, ref: gitRef, folder: repositoryFolder, updatePolicy }))
    .mutation(async ({ ctx, input }) => ({ jobId: (await ctx.services.imports.startGithub(ctx.actor, input)).jobId })),

  fromZip: adminProcedure.input(zipUpload).mutation(async ({ ctx, input }) => ({ jobId: (await ctx.services.imports.startZip(ctx.actor, decode(input))).jobId })),

  /** One turn of the chat that drafts a package; nothing is saved. */
  chatTurn: adminProcedure
    .input(z.object({ fields: draftFields, messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: chatMessage })).min(1).max(50) }))
    .mutation(({ ctx, input }) => ctx.services.imports.chatTurn(ctx.actor, input)),

  fromChat: adminProcedure.input(z.object({ fields: draftFields })).mutation(async ({ ctx, input }) => ({ jobId: (await ctx.services.imports.startChat(ctx.actor, input)).jobId })),

  confirm: adminProcedure
    .input(z.object({ id: objectId, acknowledgeLicense: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.services.imports.jobs.confirm(ctx.actor, input.id, { acknowledgeLicense: input.acknowledgeLicense })),

  discard: adminProcedure.input(z.object({ id: objectId })).mutation(({ ctx, input }) => ctx.services.imports.jobs.discard(ctx.actor, input.id)),

  /** An imported extension: where from, the sync state and history. */
  imported: adminProcedure.input(z.object({ extensionId: objectId })).query(({ ctx, input }) => ctx.services.imports.imported(input.extensionId)),

  update: adminProcedure
    .input(z.object({ extensionId: objectId, zip: zipUpload.optional() }))
    .mutation(async ({ ctx, input }) => {
      const started = await ctx.services.imports.startUpdate(ctx.actor, input.extensionId, input.zip ? { zip: decode(input.zip) } : {});
      return started.upToDate ? { upToDate: true as const, commitSha: started.commitSha } : { upToDate: false as const, jobId: started.jobId };
    }),

  setUpdatePolicy: adminProcedure
    .input(z.object({ extensionId: objectId, updatePolicy }))
    .mutation(({ ctx, input }) => ctx.services.imports.setUpdatePolicy(ctx.actor, input.extensionId, input.updatePolicy)),
});
