// `faultline users create`: a person who signs in to the web app. Works with the service running
// (over the admin socket) or stopped (on the database). The password is read from standard input
// when it is piped, else generated and printed once; either way only its scrypt hash leaves here.
import type { Command, Option } from 'commander';
import { withAdmin } from '../admin/client.js';
import { generatePassword, hashPassword, ROLES, type Role } from '../storage/users.js';
import { fail, loadConfig } from './config.js';

const MIN_PASSWORD = 8;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function usersCommand(users: Command, configOption: () => Option): void {
  users
    .command('create')
    .description('Create a web app user; the password is read from stdin when piped, else generated and printed once')
    .requiredOption('--email <email>', 'what the user signs in with')
    .option('--role <role>', 'admin (also manages projects, keys and alert rules) or member (reads, changes issue status)', 'member')
    .addOption(configOption())
    .action(async (options: { email: string; role: string; config?: string }) => {
      if (!(ROLES as readonly string[]).includes(options.role)) fail('--role is admin or member');
      const piped = process.stdin.isTTY ? '' : (await readStdin()).split(/\r?\n/)[0];
      if (piped && piped.length < MIN_PASSWORD) fail(`the password needs at least ${MIN_PASSWORD} characters`);
      const password = piped || generatePassword();
      const passwordHash = await hashPassword(password);
      const dataDir = loadConfig(options.config).settings.data_dir;
      const user = await withAdmin(dataDir, (ops) => ops.createUser({ email: options.email, role: options.role as Role, passwordHash })).catch(fail);
      process.stdout.write(`Created ${user.role} ${user.email} (${user.id}).\n`);
      if (!piped) process.stdout.write(`The password is shown once:\n${password}\n`);
    });
}
