// Every record a test holds, by name: the same types the control client answers with, as the emulator's entry
// hands them out.
export type * from '../emulator/records.js';
