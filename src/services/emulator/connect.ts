// The running emulator a command acts on, and its control client: thin wrappers over locate.ts, which alone
// decides which emulator a command means (a named data dir, else the one serving the address in use, else the
// default data dir's) and which runtime files it believes.
import type {EmulatorControl, FetchLike, RuntimeInfo} from '@svc/client';
import {controlOf, type LocateOptions, locateEmulator, notFoundError} from './locate.js';

export interface ConnectOptions extends LocateOptions {
  fetch?: FetchLike;
}

/** Where a command looked when no emulator ran there: the address in use, or the data dir. */
export async function lookedFor(options: ConnectOptions): Promise<{data_dir: string; api_url?: string}> {
  const located = await locateEmulator(options);
  return located.found ? {data_dir: located.dataDir} : located.lookedFor;
}

/** The running emulator the command means, or the error saying where it looked (and why nothing was believed). */
export async function findRunning(options: ConnectOptions): Promise<{info: RuntimeInfo; dataDir: string}> {
  const located = await locateEmulator(options);
  if (!located.found) throw notFoundError(located);
  return {info: located.info, dataDir: located.dataDir};
}

export async function connectControl(
  options: ConnectOptions,
): Promise<{control: EmulatorControl; info: RuntimeInfo}> {
  const found = await findRunning(options);
  return {control: controlOf(found, options), info: found.info};
}

/** A result with the API address of the emulator it came from, which the command names beside it. */
export interface At<T> {
  value: T;
  apiUrl: string;
}

/** Like withControl, and says which emulator acted: the address a command prints its result with. */
export async function withControlAt<T>(
  options: ConnectOptions,
  fn: (control: EmulatorControl, info: RuntimeInfo) => Promise<T>,
): Promise<At<T>> {
  const {control, info} = await connectControl(options);
  return {value: await fn(control, info), apiUrl: info.api_url};
}

/** Runs one control call against the running emulator; its EmulatorControlError reaches the CLI's error mapper. */
export async function withControl<T>(
  options: ConnectOptions,
  fn: (control: EmulatorControl, info: RuntimeInfo) => Promise<T>,
): Promise<T> {
  const {control, info} = await connectControl(options);
  return fn(control, info);
}
