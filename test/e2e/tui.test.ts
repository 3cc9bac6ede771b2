// The real `svc tui` in a real terminal (tmux, 80×24) against an emulator process with a failing receiver:
// navigate to the failing delivery, read its attempts, watch it retry, resend it, see the new attempt, filter, quit.
// Also: deliveries show / emulator deliveries resend on the command line, and the refusal without a terminal.
import {execFileSync} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type Receiver, startReceiver} from '../emulator/delivery/helpers.js';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {describeNeeding, TMUX} from '../helpers/requirements.js';
import {BIN, runCli, runCommand} from '../helpers/run-cli.js';

// A tmux server of this test file's own, so nothing else's sessions are touched.
const SOCKET = `svc-tui-e2e-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], {encoding: 'utf8'});

let dataDir: string;
let emu: RunningEmulator | undefined;
let receiver: Receiver;
let env: Record<string, string>;
let webhookId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-tui-'));
  // sandbox.error deliveries fail with an answer worth reading; everything else is accepted.
  receiver = await startReceiver((req, res) => {
    const failing = req.headers['svc-event-type'] === 'sandbox.error';
    res.writeHead(failing ? 500 : 200, {'content-type': 'application/json'});
    res.end(failing ? '{"error":"receiver database is down"}' : '{"ok":true}');
  });
  // In this process: the TUI in tmux and the commands find it by its data dir's emulator.json, as they would a
  // process's.
  emu = await startEmulator({dataDir, port: 0, clock: 'manual', allowLocalEndpoints: true});
  const cli = (args: string[]) => runCommand([...args, '--data-dir', dataDir, '--json']);
  const key = JSON.parse((await cli(['emulator', 'keys', 'create', '--name', 'tui'])).stdout) as {
    secret: string;
  };
  const hook = await cli([
    'emulator',
    'webhooks',
    'create',
    '--url',
    `${receiver.url}/hooks`,
    '--events',
    'sandbox.error,sandbox.stopped',
  ]);
  webhookId = (JSON.parse(hook.stdout) as {id: string}).id;
  env = {
    SVC_API_URL: emu.apiUrl,
    SVC_API_KEY: key.secret,
    SVC_EMULATOR_DATA_DIR: dataDir,
    SVC_CONFIG_DIR: join(dataDir, 'config'),
  };
  expect((await cli(['trigger', 'sandbox.stopped'])).code).toBe(0);
  // The clock is manual: moved a second, so that "newest first" has an order to show.
  expect((await cli(['emulator', 'clock', 'advance', '1s'])).code).toBe(0);
  expect((await cli(['trigger', 'sandbox.error', '--last-error', 'disk full'])).code).toBe(0);
});

afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // no server was started
  }
  await emu?.stop();
  await receiver?.close();
  if (dataDir) await rm(dataDir, {recursive: true, force: true});
});

function startTui(session: string, extraEnv: Record<string, string> = {}) {
  const vars = {...env, ...extraEnv};
  // A session without NO_COLOR of its own must not take one from the shell that runs the tests.
  const unset = 'NO_COLOR' in vars ? '' : 'env -u NO_COLOR ';
  const command = `${unset}${process.execPath} ${BIN} tui; echo "EXITED $?"; sleep 60`;
  tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '80',
    '-y',
    '24',
    ...Object.entries(vars).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    command,
  );
}

const screen = (session: string, escapes = false) =>
  tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', session);

/**
 * The screen once it satisfies the check. tmux gives no event for a redrawn pane, so the screen is read until it
 * does: this poll is how a person's eyes read a terminal, the behaviour under test.
 */
async function until(
  session: string,
  check: (text: string) => boolean,
  what: string,
  escapes = false,
): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const text = screen(session, escapes);
    if (check(text)) return text;
    if (Date.now() > deadline) throw new Error(`never saw ${what} on the screen:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sees = (session: string, text: string) => until(session, (s) => s.includes(text), JSON.stringify(text));

/**
 * Types keys one at a time, each once the screen has shown the one before it: keys that reach the program together
 * are read as one input, and a key meant for the next screen must not arrive while the last one is still shown.
 */
async function keys(session: string, ...list: string[]) {
  for (const k of list) {
    const before = screen(session);
    tmux('send-keys', '-t', session, k);
    await until(session, (s) => s !== before, `the screen after the key ${k}`);
  }
}

const selectedLine = (text: string) => text.split('\n').find((l) => l.startsWith('> ')) ?? '';

describeNeeding([TMUX], 'svc tui in a terminal', () => {
  it('browses to the failing delivery, shows its attempts live, resends it, filters and quits', async () => {
    startTui('main');
    // Read in the frame that shows the endpoint, never in a capture of its own taken mid-redraw.
    const first = await until(
      'main',
      (s) => s.includes(webhookId) && s.includes(`${emu?.apiUrl} (emulator)`),
      'the endpoint and the emulator it comes from',
    );
    expect(first).toContain(`${emu?.apiUrl} (emulator)`);
    await keys('main', 'Enter');
    // Both events were delivered once by now or soon: wait for the rows to show it.
    let text = await until(
      'main',
      (s) => /sandbox\.error\s+pending\s+1\s+500/.test(s) && /sandbox\.stopped\s+succeeded/.test(s),
      'both rows after their first attempt',
    );
    // Newest first: the failing sandbox.error delivery is on top.
    const rows = text.split('\n').filter((l) => l.includes('sandbox.'));
    expect(rows[0]).toMatch(/sandbox\.error\s+pending\s+1\s+500/);
    expect(rows[1]).toMatch(/sandbox\.stopped\s+succeeded\s+1\s+200/);
    expect(selectedLine(text)).toContain('sandbox.error');

    await keys('main', 'Enter');
    text = await sees('main', 'Attempts (1)');
    expect(text).toMatch(/#1\s+\S+ \S+\s+scheduled\s+500\s+\d+ ms/);
    expect(text).toContain('│ {"error":"receiver database is down"}');

    // The retry is due 30 s later on the emulator's clock: the screen picks it up on its own.
    expect((await runCommand(['emulator', 'clock', 'advance', '30s', '--data-dir', dataDir])).code).toBe(0);
    text = await sees('main', 'Attempts (2)');
    expect(text).toMatch(/#2\s+.*scheduled\s+500/);

    await keys('main', 'r');
    text = await until('main', (s) => s.includes('Resent') && s.includes('Attempts (3)'), 'the resend');
    expect(text).toMatch(/Resent dlv_\w+: attempt #3 → 500/);
    expect(text).toMatch(/#3\s+.*manual\s+500/);
    expect(receiver.requests.filter((r) => r.headers['svc-event-type'] === 'sandbox.error')).toHaveLength(3);

    await keys('main', 'Escape');
    text = await sees('main', 'NEXT ATTEMPT');
    expect(text).toMatch(/sandbox\.error\s+pending\s+3\s+500/);

    await keys('main', '/', 's', 't', 'o', 'p');
    text = await until(
      'main',
      (s) => s.includes('filter: stop') && !s.includes('sandbox.error'),
      'the filter',
    );
    expect(text).toContain('sandbox.stopped');
    await keys('main', 'Escape');
    await until(
      'main',
      (s) => s.includes('sandbox.error') && s.includes('sandbox.stopped'),
      'the filter cleared',
    );

    await keys('main', '?');
    await sees('main', 'resend the delivery now');
    await keys('main', 'x', 'q');
    text = await sees('main', 'EXITED 0');
    // The alternate screen is left: the shell's screen is back, without the browser's frame.
    expect(text).not.toContain('NEXT ATTEMPT');
  });

  it('follows the terminal when it is resized', async () => {
    startTui('resize');
    await sees('resize', webhookId);
    await keys('resize', 'Enter');
    let text = await sees('resize', 'NEXT ATTEMPT');
    // 80 columns: no room for the delivery id column.
    expect(text).not.toMatch(/NEXT ATTEMPT\s+ID/);
    tmux('resize-window', '-t', 'resize', '-x', '120', '-y', '30');
    text = await until('resize', (s) => /NEXT ATTEMPT\s+ID/.test(s), 'the id column at 120 columns');
    expect(text).toMatch(/dlv_\w{24}/);
    // The key line moved down to the new last row.
    expect(text.split('\n')[29]).toContain('q quit');
    await keys('resize', 'q');
  });

  it('honours NO_COLOR, and uses colour otherwise', async () => {
    startTui('plain', {NO_COLOR: '1'});
    startTui('colour');
    await sees('plain', webhookId);
    await sees('colour', webhookId);
    await keys('plain', 'Enter');
    await keys('colour', 'Enter');
    await sees('plain', 'NEXT ATTEMPT');
    await sees('colour', 'NEXT ATTEMPT');
    const colourCodes = /\u001B\[[0-9;]*(3[0-7]|9[0-7]|38;5;\d+)m/;
    // Both read from a frame that shows the whole list (the condition), with the escapes tmux keeps.
    const full = (name: string) =>
      until(name, (s) => s.includes('NEXT ATTEMPT') && s.includes('sandbox.'), 'the list', true);
    expect(await full('colour')).toMatch(colourCodes);
    expect(await full('plain')).not.toMatch(colourCodes);
    await keys('plain', 'q');
    await keys('colour', 'q');
  });
});

describe('delivery detail and resend on the command line', () => {
  it('show --json has the attempts and the event; resend adds a manual attempt; both exit 0', async () => {
    const list = await runCommand(['webhooks', 'deliveries', webhookId, '--json'], {env});
    const failing = (JSON.parse(list.stdout) as {data: {id: string; event_type: string}[]}).data.find(
      (d) => d.event_type === 'sandbox.error',
    );
    const id = failing?.id as string;
    const shown = await runCommand(['webhooks', 'deliveries', 'show', id, '--json'], {env});
    expect(shown.code, shown.stderr).toBe(0);
    const detail = JSON.parse(shown.stdout) as {
      delivery: {attempts: number};
      event: {data: {sandbox: {last_error: string}}};
      attempts: {trigger: string; response_body: string; signature_t: number}[];
    };
    expect(detail.event.data.sandbox.last_error).toBe('disk full');
    expect(detail.attempts[0]).toMatchObject({
      trigger: 'scheduled',
      response_body: '{"error":"receiver database is down"}',
    });
    expect(detail.attempts[0]?.signature_t).toEqual(expect.any(Number));

    const resent = await runCommand(['emulator', 'deliveries', 'resend', id, '--data-dir', dataDir], {env});
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toMatch(/manual\s+500/);
    expect(resent.stdout).toContain(`Attempts (${detail.attempts.length + 1})`);

    const human = await runCommand(['webhooks', 'deliveries', 'show', id], {env});
    expect(human.stdout).toContain('Event body');
    expect(human.stdout).toContain('"last_error": "disk full"');
  });

  it('against an API that is not an emulator’s, show says where attempt detail comes from', async () => {
    const list = await runCommand(['webhooks', 'deliveries', webhookId, '--json'], {env});
    const id = (JSON.parse(list.stdout) as {data: {id: string}[]}).data[0]?.id as string;
    // The same API, but no emulator data dir that names it: the CLI cannot know it is an emulator.
    const elsewhere = {...env, SVC_EMULATOR_DATA_DIR: join(dataDir, 'nothing-here')};
    const shown = await runCommand(['webhooks', 'deliveries', 'show', id], {env: elsewhere});
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Attempt detail and the event body come from the emulator');
    const json = await runCommand(['webhooks', 'deliveries', 'show', id, '--json'], {env: elsewhere});
    expect(JSON.parse(json.stdout)).toMatchObject({
      delivery: {id},
      endpoint_id: webhookId,
      attempts: null,
      event: null,
    });
  });

  it('unknown and malformed ids: not_found (exit 1) and usage (exit 2)', async () => {
    const missing = await runCommand(
      ['webhooks', 'deliveries', 'show', 'dlv_000000000000000000000000', '--json'],
      {env},
    );
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({error: {code: 'not_found'}});
    const malformed = await runCommand(['emulator', 'deliveries', 'resend', 'nope', '--data-dir', dataDir]);
    expect(malformed.code).toBe(2);
  });

  it('svc tui without a terminal exits 2 and names the --json commands', async () => {
    // Spawned: whether stdin and stdout are terminals is the question.
    const r = await runCli(['tui'], {env});
    expect(r.code).toBe(2);
    // oclif wraps the message to the width; read it as one line.
    const said = r.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ');
    expect(said).toContain('needs a terminal');
    expect(said).toContain('svc webhooks deliveries WEBHOOK_ID --json');
  });
});
