// `svc conformance`: the deployment and key a command would use (SVC_API_KEY or the stored login for the
// address), then every check of run.ts.
import {resolveCredentials} from '../../auth/resolve.js';
import {type ConformanceReport, runConformance} from './run.js';

export type {ConformanceCheck, ConformanceReport} from './run.js';

export interface CheckDeploymentOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  rateLimit: boolean;
}

export async function checkDeployment(options: CheckDeploymentOptions): Promise<ConformanceReport> {
  const credentials = await resolveCredentials({env: options.env, flags: {apiUrl: options.apiUrl}});
  const {nodeHttpFetch} = await import('../../lib/node-transport.js');
  return runConformance({
    apiUrl: credentials.apiUrl,
    apiKey: credentials.apiKey,
    fetch: nodeHttpFetch(options.env),
    rateLimit: options.rateLimit,
  });
}
