// Where svc keeps its files. Each location can be moved by an environment variable (tests, CI, containers).
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
