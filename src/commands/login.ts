import {Flags} from '@oclif/core';
import {BaseCommand} from '../lib/base-command.js';
import {apiUrlFlag} from '../lib/flags.js';
import {usageError} from '../lib/errors.js';
import {currentSvcCommand} from '../lib/invocation.js';
import {login, STDIN_ONLY_MESSAGE} from '../services/login.js';
import {readSecret} from '../ui/secret-input.js';
import {loggedIn} from '../ui/auth.js';

const OWN_FLAGS = new Set(['--keychain', '--json', '--debug', '--help', '-h']);

function hasForeignArgument(argv: string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (OWN_FLAGS.has(token) || token.startsWith('--api-url=')) continue;
    if (token === '--api-url') {
      i++;
      continue;
    }
    return true;
  }
  return false;
}

export default class Login extends BaseCommand {
  static override summary = 'Check an API key and store it for this machine';
  static override description =
    'The key is read from standard input only (a hidden prompt at a terminal), never from a flag or argument, ' +
    'so it stays out of shell history and process lists. It is checked with the API before it is stored, ' +
    'in a file only you can read (default) or in the OS keychain (--keychain).';
  static override examples = [
    '<%= config.bin %> login < key.txt',
    '<%= config.bin %> emulator keys create --name dev | <%= config.bin %> login --api-url http://127.0.0.1:4010',
    '<%= config.bin %> login --keychain',
  ];
  // Not strict: oclif would echo an unexpected argument, which here is most likely the key itself.
  static override strict = false;
  static override flags = {
    'api-url': apiUrlFlag({description: 'API address the key is for (default: SVC_API_URL)'}),
    keychain: Flags.boolean({
      description: 'store the key in the OS keychain instead of the credentials file',
    }),
  };

  async run() {
    // Checked before oclif parses: its "Nonexistent flag: --key=svc_…" would print the key.
    if (hasForeignArgument(this.argv))
      throw usageError(`svc login takes no key as an argument; ${STDIN_ONLY_MESSAGE}`);
    const {flags} = await this.parse(Login);
    const {stdin, stderr} = this.streams();
    const result = await login({
      env: process.env,
      apiUrl: flags['api-url'],
      keychain: flags.keychain,
      readKey: () => readSecret(stdin, stderr, 'Paste the API key (input is hidden): '),
      interactive: stdin.isTTY === true,
      warn: (message) => this.warn(message),
    });
    // A person reads what happened on stderr; stdout holds nothing but the --json answer.
    this.note(loggedIn(result, currentSvcCommand()));
    await this.show(result, () => '');
  }
}
