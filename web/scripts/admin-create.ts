/**
 * Creates an admin, or (--reset-password) sets a new password for an existing user. The password is never taken from the command line (it would land in shell
 * history and process listings): it is read from a hidden prompt, or from stdin when piped.
 *
 *   pnpm admin:create --email ops@example.com
 *   printf '%s' "$PASSWORD" | pnpm admin:create --email ops@example.com
 *   pnpm admin:create --email ops@example.com --reset-password   (an existing user: new password, sessions ended)
 */
import '@service/core/node-engine/require';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { startServices } from '@service/core/boot';
import { systemActor } from '@service/core/auth';
import { isDomainError } from '@service/core/errors';

async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    let input = '';
    for await (const chunk of process.stdin) input += String(chunk);
    return input.replace(/\r?\n$/, '');
  }
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stdout.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  const ask = (prompt: string) =>
    new Promise<string>((resolve) => {
      process.stdout.write(prompt);
      muted = true;
      rl.question('', (answer) => {
        muted = false;
        process.stdout.write('\n');
        resolve(answer);
      });
    });
  const first = await ask('Password: ');
  const second = await ask('Repeat password: ');
  rl.close();
  if (first !== second) throw new Refusal('the passwords do not match; nothing was changed');
  return first;
}

/** A refusal the operator can act on: printed as it is, exit status 1, no stack. */
class Refusal extends Error {}

function parseArgs(argv: string[]) {
  const index = argv.indexOf('--email');
  const email = index >= 0 ? argv[index + 1]?.trim() : undefined;
  if (!email || email.startsWith('--')) throw new Refusal(USAGE);
  const unknown = argv.filter((arg, i) => arg.startsWith('--') && arg !== '--email' && arg !== '--reset-password' && i !== index + 1);
  if (unknown.length > 0) throw new Refusal(`unknown option ${unknown.join(' ')} (the password is never taken from the command line)\n${USAGE}`);
  return { email, resetPassword: argv.includes('--reset-password') };
}

const USAGE = 'usage: pnpm admin:create --email you@example.com [--reset-password] (password from the hidden prompt, or stdin when piped)';

async function main() {
  const { email, resetPassword } = parseArgs(process.argv.slice(2));
  const started = await startServices(process.env, { role: 'tool', embeddedRegistry: false });
  try {
    const { accounts, database } = started.services;
    const existing = await database.models.User.findOne({ email: email.toLowerCase() }, { email: 1, role: 1 }).lean();
    // Checked before the password is asked for, so nobody types one for nothing.
    if (existing && !resetPassword) {
      throw new Refusal(`${existing.email} already exists (${existing.role}); to set a new password run \`pnpm admin:create --email ${existing.email} --reset-password\``);
    }
    if (!existing && resetPassword) throw new Refusal(`there is no user ${email.toLowerCase()}; to create an admin run \`pnpm admin:create --email ${email.toLowerCase()}\``);
    const password = await readPassword();
    if (existing) {
      await accounts.resetPassword(existing.email, password, 'admin:create');
      process.stdout.write(`set a new password for ${existing.email} (${existing.role}); their sessions were signed out\n`);
    } else {
      const { user } = await accounts.create(systemActor('admin:create'), { email, password, role: 'admin' });
      process.stdout.write(`created admin ${user.email}\n`);
    }
  } finally {
    await started.stop();
  }
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  // A refused password is a refusal too: say the rule, not a stack.
  process.stderr.write(`${error instanceof Refusal || isDomainError(error) ? message : `admin:create failed: ${message}`}\n`);
  process.exit(1);
});
