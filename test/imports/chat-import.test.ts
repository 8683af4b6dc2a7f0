import { EMPTY_DRAFT } from '@service/core/imports';
import { testServices, useTestDatabase } from '@service/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminOf } from '../helpers/instances.ts';

const t = useTestDatabase();
const admin = adminOf('@acme');
let services: ReturnType<typeof testServices>;

beforeAll(() => {
  services = testServices(t.db);
});

describe('importing from a chat (offline scripted provider)', () => {
  it('a conversation drafts a package, shown as files before anything is saved, that passes review and installs with source chat', async () => {
    expect(services.llm.name).toBe('scripted');
    const messages = [{ role: 'user' as const, content: 'I need an agent that writes FAQ entries.\nset slug to "faq-writer"\nset name to "FAQ writer"\nset description to "Turns notes into FAQ entries."' }];
    const first = await services.imports.chatTurn(admin, { fields: EMPTY_DRAFT, messages });
    expect(first.fields).toMatchObject({ slug: 'faq-writer', name: 'FAQ writer', description: 'Turns notes into FAQ entries.', instructions: '' });
    expect(first.reply).toMatch(/\[scripted\] Applying 3 edits/);
    expect(first.findings.map((f) => f.path)).toContain('flow.json:instructions');
    expect(await t.db.models.Extension.countDocuments({})).toBe(0);

    messages.push({ role: 'assistant' as const, content: first.reply } as never, {
      role: 'user',
      content: 'set instructions to "Write one question and its answer per note."; set tags to "faq, writing"; set license to "MIT"',
    });
    const second = await services.imports.chatTurn(admin, { fields: first.fields, messages });
    expect(second.findings).toEqual([]);
    expect(second.files.map((f) => f.name)).toEqual(['package.json', 'flow.json']);
    expect(JSON.parse(second.files[0]!.text)).toMatchObject({ name: '@acme/faq-writer', version: '1.0.0', license: 'MIT', service: { kind: 'agent' } });
    expect(JSON.parse(second.files[1]!.text)).toMatchObject({ id: 'faq-writer', type: 'leaf', tags: ['faq', 'writing'], instructions: 'Write one question and its answer per note.' });
    expect(await t.db.models.Extension.countDocuments({})).toBe(0);

    const job = await (await services.imports.startChat(admin, { fields: second.fields })).done;
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    const extension = (await services.extensions.get(job.extensionId!))!;
    expect(extension.packageName).toBe('@acme/faq-writer');
    expect(extension.origin.importedFrom).toEqual({ source: 'chat', license: 'MIT', licenseAcknowledged: true, updatePolicy: 'manual', lastSyncedAt: expect.any(String) });
    expect((await services.agentCard()).skills.map((s) => s.packageName)).toContain('@acme/faq-writer');
  });

  it('a draft without a license installs at once: the admin wrote it, so there is no license of someone else to acknowledge', async () => {
    const fields = { ...EMPTY_DRAFT, slug: 'own-words', name: 'Own words', description: 'Rewrites notes in the author\'s own words.', tags: 'writing', instructions: 'Rewrite the notes plainly.' };
    const job = await (await services.imports.startChat(admin, { fields })).done;
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.steps.find((step) => step.id === 'license')).toMatchObject({ state: 'done', detail: expect.stringMatching(/chosen by its author, .*, when drafting/) });
    expect((await services.extensions.get(job.extensionId!))!.packageName).toBe('@acme/own-words');
  });

  it('a draft that fails review is refused at the review step with nothing written', async () => {
    const job = await (await services.imports.startChat(admin, { fields: { ...EMPTY_DRAFT, slug: 'Bad Slug', name: 'x', description: 'x', instructions: 'x' } })).done;
    expect(job.state).toBe('failed');
    expect(job.error).toMatchObject({ code: 'REVIEW_FAILED' });
    expect(await t.db.models.Extension.countDocuments({ packageName: /Bad/ })).toBe(0);
  });
});
