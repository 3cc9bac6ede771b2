// `svc version` and `svc --version` print the same line.
export interface VersionInfo {
  version: string;
  platform: string;
  arch: string;
  node: string;
}

export function renderVersion(bin: string, v: VersionInfo): string {
  return `${bin}/${v.version} ${v.platform}-${v.arch} node-v${v.node}`;
}
