import {Flags} from '@oclif/core';
import {BaseCommand} from '../lib/base-command.js';
import {apiUrlFlag, dataDirFlag} from '../lib/flags.js';
import {runDoctor} from '../services/doctor/index.js';
import {renderDoctor} from '../ui/doctor.js';
import {ExitCode} from '../lib/exit-codes.js';

export default class Doctor extends BaseCommand {
  static override summary = 'Check why this machine may misbehave with svc: each finding with its fix';
  static override description =
    'Read-only checks in lanes: system (the Node.js version and its end of life), clock (skew against the ' +
    "API's Date header, measured against the signature tolerance; an emulator's manual clock), network " +
    '(localhost and *.localhost resolution, proxy variables, where a --forward-to server listens), auth (the ' +
    'credentials file, whether the key in use still works, whether the OS keychain can keep a key: a throwaway ' +
    'entry is stored, read back and removed) and emulator (the data dir, a stale ' +
    'emulator.json, the database template, and on a shared PostgreSQL (SVC_EMULATOR_DATABASE_URL) whether ' +
    "this machine's vault key is the database's). It only looks: a file open to others is reported with the " +
    'command that fixes it, never changed. Exits 0 when nothing fails, 1 otherwise.';
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --forward-to http://localhost:3000/webhooks --json',
  ];
  static override flags = {
    'forward-to': Flags.string({description: 'also check where this local server listens', helpValue: 'URL'}),
    'api-url': apiUrlFlag(),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {flags} = await this.parse(Doctor);
    const report = await runDoctor({
      env: process.env,
      apiUrl: flags['api-url'],
      dataDir: flags['data-dir'],
      forwardTo: flags['forward-to'],
    });
    // A verdict, not an error: the report is printed whole, and the exit code says something failed.
    if (report.fail > 0) process.exitCode = ExitCode.error;
    await this.show(report, renderDoctor);
  }
}
