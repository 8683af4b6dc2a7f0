/**
 * Creates an admin. The password is never taken from the command line (it would land in shell
 * history and process listings): it is read from a hidden prompt, or from stdin when piped.
 *
 *   pnpm admin:create --email ops@example.com
 *   printf '%s' "$PASSWORD" | pnpm admin:create --email ops@example.com
 */
import '@service/core/node-engine/require';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { startServices } from '@service/core/boot';
import { systemActor } from '@service/core/auth';

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
  if (first !== second) throw new Error('passwords do not match');
  return first;
}

async function main() {
  const index = process.argv.indexOf('--email');
  const email = index >= 0 ? process.argv[index + 1] : undefined;
  if (!email) throw new Error('usage: pnpm admin:create --email you@example.com (password from prompt or stdin)');
  const password = await readPassword();
  const started = await startServices(process.env, { role: 'tool', embeddedRegistry: false });
  try {
    const admin = await started.services.users.create({ email, password, role: 'admin' });
    started.services.audit.record(systemActor('admin:create'), { action: 'user.create', resourceType: 'user', resourceId: admin.id, details: { email: admin.email, role: 'admin', source: 'cli' } });
    process.stdout.write(`created admin ${admin.email}\n`);
  } finally {
    await started.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
