import { describe, expect, it } from 'vitest';
import { acceptedAnswers, answerOf } from './hitl-answer.ts';

const oneText = { screenId: 'note', schema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] } };
const approve = { screenId: 'approve', schema: { type: 'object', properties: { approved: { type: 'boolean' }, notes: { type: 'string' } } } };
const text = (value: string) => ({ parts: [{ type: 'text' as const, text: value }] });

describe('answers to a paused task from generic clients', () => {
  it('takes the explicit resume payload, a data part of just the values, or plain text for one text field', () => {
    expect(answerOf({ parts: [{ type: 'data', data: { resume: { screenId: 'approve', values: { approved: true } } } }] }, approve)).toEqual({ screenId: 'approve', values: { approved: true } });
    expect(answerOf({ parts: [{ type: 'data', data: { approved: false } }] }, approve)).toEqual({ screenId: 'approve', values: { approved: false } });
    expect(answerOf(text('Looks good'), oneText)).toEqual({ screenId: 'note', values: { note: 'Looks good' } });
  });

  it('takes no plain text for a screen with other fields, and nothing without a pause', () => {
    expect(answerOf(text('yes'), approve)).toBeNull();
    expect(answerOf(text(''), oneText)).toBeNull();
    expect(answerOf({ parts: [{ type: 'data', data: { approved: true } }] }, null)).toBeNull();
  });

  it('says which shapes a screen takes', () => {
    expect(acceptedAnswers(oneText.schema)).toEqual(['resume', 'values', 'text']);
    expect(acceptedAnswers(approve.schema)).toEqual(['resume', 'values']);
  });
});
