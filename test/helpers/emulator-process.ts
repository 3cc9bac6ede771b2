// Spawns `svc emulator start --json` as a user runs it and resolves with its ready line.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process';
import {BIN} from './run-cli.js';

export interface StartedProcess {
  child: ChildProcessWithoutNullStreams;
  ready: {api_url: string; account_url: string; data_dir: string; [key: string]: unknown};
  stderr: () => string;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function spawnEmulator(args: string[], env: Record<string, string>): Promise<StartedProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--json', '--port', '0', ...args], {
      env: {PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env},
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdout.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        try {
          const ready = JSON.parse(line);
          resolve({
            child,
            ready,
            stderr: () => stderr,
            exited,
            stop: () => {
              child.kill('SIGTERM');
              return exited;
            },
          });
        } catch (err) {
          reject(err);
        }
      }
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) =>
      reject(new Error(`emulator exited with ${code} before ready: ${stderr}${stdout}`)),
    );
  });
}
