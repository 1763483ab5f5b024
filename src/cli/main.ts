// `faultline`: start, validate, components, keys, projects, quarantine, alerts, users, sourcemaps, monitors.
import { Command, Option } from 'commander';
import { VERSION } from '../version.js';
import { alertsCommand, keysCommand, projectsCommand, quarantineCommand } from './admin-commands.js';
import { componentsCommand } from './components.js';
import { monitorsCommand } from './monitors.js';
import { sourcemapsCommand } from './sourcemaps.js';
import { startCommand } from './start.js';
import { usersCommand } from './users.js';
import { validateCommand } from './validate.js';

const program = new Command('faultline').description('Self-hosted error monitoring: receivers -> processors -> exporters').version(VERSION);

const configOption = () => new Option('-c, --config <file>', 'YAML configuration (default: the embedded config/default.yaml)');

program.command('start').description('Run the service').addOption(configOption()).action(startCommand);

program.command('validate').description('Check a configuration; print every error with its YAML path').addOption(configOption()).action(validateCommand);

program
  .command('components')
  .description('List the components of this build: signals, stability, contracts and config keys')
  .option('--json', 'machine-readable output')
  .action(componentsCommand);

keysCommand(program.command('keys').description('Manage API keys (works while the service runs)'), configOption);
projectsCommand(program.command('projects').description('Manage projects (works while the service runs)'), configOption);
quarantineCommand(
  program.command('quarantine').description('Items acknowledged and then refused by a later stage (works while the service runs)'),
  configOption,
);
alertsCommand(program.command('alerts').description('Alert rules: list them, send a test notification (works while the service runs)'), configOption);

usersCommand(program.command('users').description('Web app users (works while the service runs)'), configOption);

sourcemapsCommand(
  program.command('sourcemaps').description('Source maps and symbol files of a release (talks to the running service over HTTP)'),
  configOption,
);

monitorsCommand(program.command('monitors').description('Cron and uptime monitors (talks to the running service over HTTP)'), configOption);

await program.parseAsync(process.argv);
