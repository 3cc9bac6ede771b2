// Where svc keeps its files for this user, each movable by an environment variable (tests, CI, containers).
// One home for the CLI and the emulator alike: a template the emulator library makes lands where the CLI's does.
import {join} from 'node:path';
import envPaths from 'env-paths';

const paths = envPaths('svc', {suffix: ''});

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_CONFIG_DIR || paths.config;
}

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_DATA_DIR || paths.data;
}

export function emulatorDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_EMULATOR_DATA_DIR || join(dataDir(env), 'emulator');
}

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_CACHE_DIR || paths.cache;
}

/** Where a database template is made when the package's own cannot be used. */
export function templateCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'emulator-pg-template');
}
