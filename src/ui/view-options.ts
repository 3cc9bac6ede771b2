// What every read command's view is given: how to paint, how wide, what time it is, where things are managed.
import type {Paint} from '../lib/output.js';
import type {Measure} from './text.js';

export interface ViewOptions {
  paint: Paint;
  /** Terminal width, or undefined when output is not a terminal. */
  width?: number;
  nowMs: number;
  /** Display width of text; default counts code points. */
  measure?: Measure;
  /** Where keys and endpoints are managed, named when a list is empty. */
  accountUrl?: string;
}
