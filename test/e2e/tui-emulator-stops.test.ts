// The real `svc tui` in a real terminal (tmux) says what is true when things go wrong: before a login it says it
// is not logged in, and when its emulator stops it says the emulator stopped and how to start it again, never
// "internal error" (the browser is a bundle of its own, with its own copy of the client's error classes, so an
// error is told by what it says, not by which copy made it).
import {execFileSync} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, expect, it} from 'vitest';
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js';
import {describeNeeding, TMUX} from '../helpers/requirements.js';
import {BIN, runCommand} from '../helpers/run-cli.js';

// A tmux server of this test file's own, so nothing else's sessions are touched.
const SOCKET = `svc-tui-stops-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], {encoding: 'utf8'});

let root: string;
let emu: RunningEmulator | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-tui-stops-'));
  emu = await startEmulator({port: 0, dataDir: join(root, 'emulator')});
  await emu.control.createWebhook({url: 'https://hooks.example.com/svc', events: ['sandbox.ready']});
});
afterAll(async () => {
  try {
    tmux('kill-server');
  } catch {
    // no server was started
  }
  await emu?.stop();
  if (root) await rm(root, {recursive: true, force: true});
});

const screen = () => tmux('capture-pane', '-p', '-t', 'main');

/**
 * The screen once it shows `text`. tmux gives no event for a redrawn pane, so the screen is polled: this is how a
 * person's eyes read a terminal, the behaviour under test.
 */
async function sees(text: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const now = screen();
    if (now.includes(text)) return now;
    if (Date.now() > deadline) throw new Error(`never saw ${JSON.stringify(text)} on the screen:\n${now}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeNeeding([TMUX], 'svc tui when things go wrong', () => {
  it('says it is not logged in, then, once its emulator stops, that it stopped and how to start it', async () => {
    const running = emu as RunningEmulator;
    const env = {
      SVC_API_URL: running.apiUrl,
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_EMULATOR_DATA_DIR: running.dataDir,
      NO_COLOR: '1',
    };
    const command = `${process.execPath} ${BIN} tui; echo "EXITED $?"; sleep 60`;
    tmux(
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      // Wide enough for the stale line to hold the whole sentence, the command spelled as the test runs svc.
      '180',
      '-y',
      '24',
      ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      command,
    );
    const notLoggedIn = await sees('Not logged in');
    expect(notLoggedIn).toContain(`not logged in to ${running.apiUrl}`);
    expect(notLoggedIn).not.toContain('internal error');

    // Another terminal logs in: the browser follows and shows the endpoint.
    const key = await running.control.createKey({name: 'tui'});
    const login = await runCommand(['login', '--api-url', running.apiUrl], {env, input: `${key.secret}\n`});
    expect(login.code, login.stderr).toBe(0);
    await sees('hooks.example.com');

    await running.stop();
    emu = undefined;
    const port = new URL(running.apiUrl).port;
    const stopped = await sees(`the emulator at ${running.apiUrl} has stopped`);
    expect(stopped.replace(/\s+/g, ' ')).toMatch(
      new RegExp(`start it again with \`.*emulator start --port ${port}`),
    );
    expect(stopped).not.toContain('internal error');
    // The last data stays on screen, marked stale.
    expect(stopped).toContain('hooks.example.com');
  });
});
