// Global setup: in the full mode, a machine without everything the suite needs fails the run before any test.
import {checkFullMode} from '../helpers/requirements.js';

export default function setup(): void {
  checkFullMode();
}
