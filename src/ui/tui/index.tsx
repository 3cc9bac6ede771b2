// Runs the delivery browser on the screen the command prepared (screen.ts). Loaded with import() by `svc tui`
// only, as a bundle of its own: Ink and React are not part of any other command's start.
import {render} from 'ink';
import type {TuiSource} from '../../services/tui-source.js';
import {App} from './app.js';
import {FrameWriter} from './frame-writer.js';

export interface RunTuiOptions {
  source: TuiSource;
  color: boolean;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

export async function runTui(options: RunTuiOptions): Promise<void> {
  const screen = new FrameWriter(options.stdout);
  try {
    // Debug mode hands over each whole frame; the frame writer puts only the changed lines on screen.
    const app = render(<App source={options.source} color={options.color} />, {
      stdin: options.stdin,
      stdout: screen as unknown as NodeJS.WriteStream,
      debug: true,
      exitOnCtrlC: true,
      patchConsole: false,
    });
    await app.waitUntilExit();
  } finally {
    screen.close();
  }
}
