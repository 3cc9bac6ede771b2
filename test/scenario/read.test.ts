// A scenario file is checked before anything runs: every problem at once, each at its line and column, in the
// words of the JSON Schema it ships with (and the rules no schema can say: names used before they are made).
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {readScenarioText} from '../../src/scenario/read.js';
import {SCENARIO_SCHEMA} from '../../src/scenario/schema.js';

async function problemsOf(text: string, file = 'broken.yaml') {
  const read = await readScenarioText(text, file);
  expect(read.ok).toBe(false);
  return read.ok ? [] : read.problems.map((p) => `${p.line}:${p.column} ${p.path} ${p.message}`);
}

describe('reading a scenario file', () => {
  it('names every problem of a YAML file at once, each at its line and column', async () => {
    const problems = await problemsOf(
      [
        'name: broken',
        'endpoints:',
        '  main: {receiver: app, events: [sandbox.ready, sandbox.gone]}',
        'steps:',
        '  - trigger: {type: sandbox.ready, as: first, set: {data.sandbox.name: 5}}',
        '  - advance: 30x',
        '  - trigger: sandbox.ready',
        '    advance: 1m',
        '  - expect: {attempt: {endpoint: mian, event: firts, n: 0}}',
        '  - wait: 1m',
        '  - set_clock: 2030-02-30T00:00:00Z',
        '',
      ].join('\n'),
    );
    expect(problems).toEqual([
      '3:20 endpoints.main.receiver names the receiver "app", but the file has no receivers',
      '3:49 endpoints.main.events[1] must be one of: sandbox.ready, sandbox.stopped, sandbox.error, sandbox.expired',
      '5:72 steps[0].trigger.set.data.sandbox.name data.sandbox.name does not fit: invalid input: expected string, received number',
      '6:14 steps[1].advance "30x" is not a virtual duration: whole numbers with units, like 30s, 10m, 2h30m, 1d',
      '7:5 steps[2] does one thing: this step has trigger and advance; make each a step of its own',
      '9:34 steps[3].expect.attempt.endpoint names no endpoint "mian"; the endpoints are: main',
      '9:47 steps[3].expect.attempt.event names no event "firts" by an earlier step; the events are: first',
      '9:57 steps[3].expect.attempt.n must be >= 1',
      '10:5 steps[4].wait is not a step; they are: trigger, advance, set_clock, chaos, answer, resend, create_key, revoke_key, create_sandbox, sandbox, checkpoint, rewind, expect',
      '11:16 steps[5].set_clock must be a date that exists: February 2030 has 28 days, so 2030-02-30 is none',
    ]);
  });

  it('places the problems of a JSON file too, and a syntax error where it is', async () => {
    const json =
      '{\n  "name": "x",\n  "endpoints": {"main": {"url": "http://127.0.0.1:9/"}},\n  "steps": [{"trigger": {"typ": "sandbox.ready"}}]\n}\n';
    expect(await problemsOf(json, 'x.json')).toEqual([
      '4:25 steps[0].trigger needs `type`',
      '4:26 steps[0].trigger.typ is not a field here; the fields are: type, as, sandbox, set, last_error',
    ]);
    const [syntax] = await problemsOf('{"name": "x",\n  "steps": [}\n', 'x.json');
    expect(syntax).toMatch(/^2:13 {2}is not valid YAML or JSON: /);
  });

  it('says an empty list of steps needs a step', async () => {
    expect(await problemsOf('name: x\nendpoints: {a: {url: "http://127.0.0.1:9/"}}\nsteps: []\n')).toEqual([
      '3:8 steps needs at least 1 step',
    ]);
  });

  it('refuses names used before a step makes them, and a checkpoint never taken', async () => {
    const problems = await problemsOf(
      [
        'name: order',
        'endpoints: {main: {url: "http://127.0.0.1:9/"}}',
        'steps:',
        '  - revoke_key: ci',
        '  - create_key: {name: ci}',
        '  - rewind: before',
        '  - expect: {count: {endpoint: main}}',
      ].join('\n'),
    );
    expect(problems).toEqual([
      '4:17 steps[0].revoke_key names the key "ci", but none is made by an earlier step',
      '6:13 steps[2].rewind names the checkpoint "before", but none is made by an earlier step',
      '7:21 steps[3].expect.count counts `deliveries` or `attempts`: give one of them',
    ]);
  });

  it('reads every example scenario without a problem', async () => {
    for (const name of ['retry-schedule', 'expiry', 'revocation', 'duplicates']) {
      const file = `examples/scenarios/${name}.yaml`;
      const read = await readScenarioText(readFileSync(file, 'utf8'), file);
      expect(read.ok ? [] : read.problems, file).toEqual([]);
    }
  });

  it('ships the schema it checks with: fixtures/scenario.schema.json is src/scenario/schema.ts (npm run docs)', () => {
    const shipped = JSON.parse(readFileSync('fixtures/scenario.schema.json', 'utf8'));
    expect(shipped).toEqual(JSON.parse(JSON.stringify(SCENARIO_SCHEMA)));
  });
});
