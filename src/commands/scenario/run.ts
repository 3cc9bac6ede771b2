import {Args, Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {ExitCode} from '../../lib/exit-codes.js';
import {apiUrlFlag, dataDirFlag} from '../../lib/flags.js';
import {usageError} from '../../lib/errors.js';
import {writeScenarioJunit} from '../../services/scenario/junit.js';
import {runScenarioFiles, SCENARIO_EMULATOR_CHOICES} from '../../services/scenario/run.js';
import {renderScenarioReport} from '../../ui/scenario.js';

export default class ScenarioRun extends BaseCommand {
  static override summary = 'Run scenario files against a receiver in any language, on a clock of their own';
  static override description =
    'Each FILE (YAML or JSON, docs/scenarios.md) runs on an org of its own with a manual clock: it starts the ' +
    'receivers it names, makes its endpoints, and runs its steps (trigger, advance, set_clock, chaos, answer, ' +
    'resend, keys, sandboxes, checkpoint, rewind) and expectations in order. Every file is checked first, every ' +
    'problem named at its line and column.\n\n' +
    'The emulator: the running one when it has a manual clock, else one started for the run (--emulator own ' +
    'always starts one; --emulator running insists on the running one).\n\n' +
    'Exit 0 when every expectation holds, 1 when one fails (named, with what happened instead), 2 when a file is wrong.';
  static override examples = [
    '<%= config.bin %> scenario run examples/scenarios/retry-schedule.yaml',
    '<%= config.bin %> scenario run scenarios/*.yaml --junit scenarios.xml',
    "<%= config.bin %> scenario run scenarios/*.yaml --receiver app='node receiver.mjs' --json",
  ];
  static override strict = false;
  static override args = {
    file: Args.string({description: 'a scenario file (YAML or JSON); give as many as you like'}),
  };
  static override flags = {
    junit: Flags.string({
      description: 'also write the run as JUnit XML to FILE (one test case per expectation)',
      helpValue: 'FILE',
    }),
    emulator: Flags.string({
      description:
        'the emulator: a running one with a manual clock, else its own (auto); only the running one; its own',
      options: [...SCENARIO_EMULATOR_CHOICES],
      default: 'auto',
    }),
    receiver: Flags.string({
      description: "the command of a file's receiver, in place of the file's (repeatable)",
      helpValue: 'NAME=COMMAND',
      multiple: true,
    }),
    'keep-orgs': Flags.boolean({description: 'keep each scenario’s org after the run, to look at'}),
    'api-url': apiUrlFlag(),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {argv, flags} = await this.parse(ScenarioRun);
    const files = argv as string[];
    if (files.length === 0)
      throw usageError('name at least one scenario file', [
        'For example: svc scenario run examples/scenarios/retry-schedule.yaml',
      ]);
    const report = await runScenarioFiles({
      files,
      emulator: flags.emulator as (typeof SCENARIO_EMULATOR_CHOICES)[number],
      receivers: flags.receiver,
      keepOrgs: flags['keep-orgs'],
      env: process.env,
      apiUrl: flags['api-url'],
      dataDir: flags['data-dir'],
      note: (text) => this.note(text),
    });
    if (flags.junit !== undefined) writeScenarioJunit(flags.junit, report);
    if (report.failed > 0) process.exitCode = ExitCode.error;
    await this.show(report, (r, view) => renderScenarioReport(r, view.paint));
  }
}
