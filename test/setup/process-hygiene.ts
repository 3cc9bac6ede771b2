// Test files share their worker process (vitest.config.ts: the `shared` project runs without isolation), so each
// file must leave the process as it found it. This fails the file that changed the environment, the working
// directory, the umask, the global fetch or the exit code, naming what it left behind.
import {afterAll, beforeAll} from 'vitest';
import {type ProcessState, processChanges, processState} from '../helpers/process-state.js';

let before: ProcessState;
beforeAll(() => {
  before = processState();
});
afterAll(() => {
  const left = processChanges(before, processState());
  if (left.length > 0) {
    throw new Error(
      `This file left the shared test process changed; restore it in an afterAll:\n  ${left.join('\n  ')}`,
    );
  }
});
