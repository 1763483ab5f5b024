// `faultline users create | list | disable | enable | delete | reset-password`: the people who sign
// in to the web app. Works with the service running (over the admin socket) or stopped (on the
// database). A password is read from standard input when it is piped, else generated and printed
// once; either way only its scrypt hash leaves here. Disabling, deleting and resetting a password
// end the user's sessions before the command returns.
import type { Command, Option } from 'commander';
import { withAdmin } from '../admin/client.js';
import type { UserChange } from '../admin/operations.js';
import { generatePassword, hashPassword, ROLES, type Role } from '../../extensions/catalog/users.js';
import { fail, loadConfig } from './config.js';
import { table } from './table.js';

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
      const { password, piped } = await newPassword();
      const passwordHash = await hashPassword(password);
      const user = await withAdmin(dataDir(options), (ops) => ops.createUser({ email: options.email, role: options.role as Role, passwordHash })).catch(fail);
      process.stdout.write(`Created ${user.role} ${user.email} (${user.id}).\n`);
      if (!piped) process.stdout.write(`The password is shown once:\n${password}\n`);
    });

  users
    .command('list')
    .description('List web app users, disabled ones too')
    .addOption(configOption())
    .action(async (options: { config?: string }) => {
      const list = await withAdmin(dataDir(options), (ops) => ops.listUsers()).catch(fail);
      const rows = list.map((u) => ({ ...u, status: u.disabled_at ? 'disabled' : 'enabled' }));
      process.stdout.write(`${table(rows, ['id', 'email', 'role', 'status', 'created_at', 'disabled_at'])}\n`);
    });

  const change = (name: UserChange, description: string, done: string) =>
    users
      .command(name)
      .description(description)
      .argument('<user>', 'the user id (usr_…) or email')
      .addOption(configOption())
      .action(async (ref: string, options: { config?: string }) => {
        const user = await withAdmin(dataDir(options), (ops) => ops.changeUser(ref, name)).catch(fail);
        process.stdout.write(`${done} ${user.email} (${user.id}).\n`);
      });
  change('disable', 'Disable a user: they cannot sign in, and every session of theirs ends at once', 'Disabled');
  change('enable', 'Enable a disabled user again (they sign in with their password)', 'Enabled');
  change('delete', 'Delete a user and every session of theirs', 'Deleted');

  users
    .command('reset-password')
    .description('Set a new password (read from stdin when piped, else generated and printed once); every session of the user ends')
    .argument('<user>', 'the user id (usr_…) or email')
    .addOption(configOption())
    .action(async (ref: string, options: { config?: string }) => {
      const { password, piped } = await newPassword();
      const passwordHash = await hashPassword(password);
      const user = await withAdmin(dataDir(options), (ops) => ops.setUserPassword(ref, passwordHash)).catch(fail);
      process.stdout.write(`Reset the password of ${user.email} (${user.id}); their sessions ended.\n`);
      if (!piped) process.stdout.write(`The password is shown once:\n${password}\n`);
    });
}

function dataDir(options: { config?: string }): string {
  return loadConfig(options.config).settings.data_dir;
}

/** The first line piped to stdin, else a generated password. */
async function newPassword(): Promise<{ password: string; piped: boolean }> {
  const piped = process.stdin.isTTY ? '' : (await readStdin()).split(/\r?\n/)[0];
  if (piped && piped.length < MIN_PASSWORD) fail(`the password needs at least ${MIN_PASSWORD} characters`);
  return { password: piped || generatePassword(), piped: piped !== '' };
}
