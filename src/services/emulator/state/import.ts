// `svc emulator import FILE [--merge]`: loads a seed (or snapshot) into the emulator's state, in place of it
// or in addition to it. Every problem of the file is reported, named by its path, and nothing is written.
import {EmulatorControlError, type StateLoadResult} from '@svc/client';
import {UserError} from '../../../lib/errors.js';
import {type StateTargetOptions, withStateTarget} from './connect.js';

export interface ImportOptions extends StateTargetOptions {
  file: string;
  merge: boolean;
}

export async function importState(options: ImportOptions): Promise<StateLoadResult> {
  const {readStateFile, StateFileError} = await import('../../../emulator/index.js');
  let document: unknown;
  try {
    // Read here, before any emulator is touched: a file that cannot be read changes nothing.
    document = await readStateFile(options.file);
  } catch (err) {
    // Every problem, each with the file and its path.
    if (err instanceof StateFileError)
      throw new UserError(err.message, {code: 'invalid_state_file', cause: err});
    throw err;
  }
  try {
    return await withStateTarget({...options, create: true}, (control) =>
      control.importState({source: options.file, document, mode: options.merge ? 'merge' : 'replace'}),
    );
  } catch (err) {
    // The emulator refused the file's content: the same code as a file refused before it was sent.
    if (err instanceof EmulatorControlError && err.status === 400) {
      throw new UserError(err.message, {code: 'invalid_state_file', cause: err});
    }
    throw err;
  }
}
