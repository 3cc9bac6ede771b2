// `svc/<version> node/<version>`: lets the service tell client versions apart in its logs.
import {readFileSync} from 'node:fs';

/** The package version, found by walking up from this file (the depth differs between src/ and dist/src/). */
export function packageVersion(): string {
  let dir = new URL('.', import.meta.url);
  for (let depth = 0; depth < 5; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'svc' && typeof pkg.version === 'string') return pkg.version;
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
