// How a test file reaches the run's emulator without its admin token: the address and a control token that only
// makes orgs, each answered with a token of its own (the emulator's control-tokens route).
import type {EmulatorControl} from '@svc/client';

/**
 * How a test file reaches the run's emulator: its address and a control token that only makes orgs, each with a
 * token of its own (what the global setup provides; the emulator's admin token stays with whoever started it).
 */
export interface EmulatorConnection {
  url: string;
  token: string;
}

/** The connection a run's files get, asked for with the emulator's admin token. */
export async function orgMakingConnection(admin: EmulatorControl): Promise<EmulatorConnection> {
  const {token} = await admin.createControlToken({scope: 'new_orgs'});
  return {url: admin.url, token};
}
