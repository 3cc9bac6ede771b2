// Starts the delivery browser full-screen (the terminal's alternate screen, restored on exit). Loaded with
// import() by `svc tui` only: Ink and React are not part of any other command's start.
import {render} from 'ink';
import type {TuiSource} from '../../services/tui.js';
import {App} from './app.js';
import {FrameWriter} from './frame-writer.js';

export interface RunTuiOptions {
  source: TuiSource;
  color: boolean;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

const ENTER_ALTERNATE_SCREEN = '\u001B[?1049h\u001B[H\u001B[2J';
const LEAVE_ALTERNATE_SCREEN = '\u001B[?1049l';

export async function runTui(options: RunTuiOptions): Promise<void> {
  options.stdout.write(ENTER_ALTERNATE_SCREEN);
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
    options.stdout.write(LEAVE_ALTERNATE_SCREEN);
  }
}
