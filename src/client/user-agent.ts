// `svc/<version> node/<version>`: lets the service tell client versions apart in its logs.
import {readFileSync} from 'node:fs';

/** Set by the package builds (scripts/build-libs.js); absent where the sources run as they are. */
declare const __SVC_PACKAGE_VERSION__: string | undefined;

const PACKAGE_NAMES = new Set(['@svc/cli', '@svc/client']);

/** The package version: the one the build set, else found by walking up from this file to its package.json. */
export function packageVersion(): string {
  if (typeof __SVC_PACKAGE_VERSION__ === 'string') return __SVC_PACKAGE_VERSION__;
  let dir = new URL('.', import.meta.url);
  for (let depth = 0; depth < 5; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (PACKAGE_NAMES.has(pkg.name ?? '') && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: keep walking up
    }
    dir = new URL('..', dir);
  }
  return '0.0.0';
}

export function defaultUserAgent(version = packageVersion()): string {
  return `svc/${version} node/${process.versions.node}`;
}
