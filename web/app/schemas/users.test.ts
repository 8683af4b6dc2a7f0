import { describe, expect, it } from 'vitest';
import { MIN_PASSWORD_LENGTH } from '@service/core/auth';
import { newPassword, PASSWORD_MIN_LENGTH } from './users.ts';

describe('the users and account forms', () => {
  it('ask for the password length the server enforces', () => {
    expect(PASSWORD_MIN_LENGTH).toBe(MIN_PASSWORD_LENGTH);
    expect(newPassword.safeParse('x'.repeat(MIN_PASSWORD_LENGTH - 1)).success).toBe(false);
    expect(newPassword.safeParse(' '.repeat(MIN_PASSWORD_LENGTH)).success).toBe(true);
  });
});
