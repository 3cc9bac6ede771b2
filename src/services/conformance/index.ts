// `svc conformance`: the deployment and key a command would use (SVC_API_KEY or the stored login for the
// address), then every check of run.ts.
import {emulatorControlFor} from '../emulator/for-api-url.js';
import {type ConformanceReport, runConformance} from './run.js';

export type {ConformanceCheck, ConformanceReport} from './run.js';

export interface CheckDeploymentOptions {
  /** The key and address of the command's session: the deployment a command would use. */
  credentials: {apiUrl: string; apiKey: string};
  env: NodeJS.ProcessEnv;
  rateLimit: boolean;
}

/** What the run did to the deployment's failed-authentication limit, said in its report. */
export interface RateLimitEffect {
  /** The 429 check ran into the limit: this address was locked out. */
  tripped: boolean;
  /** An emulator serves the address, and its limiter was reset after the check. */
  reset: boolean;
  summary: string;
}

export async function checkDeployment(
  options: CheckDeploymentOptions,
): Promise<ConformanceReport & {rate_limit: RateLimitEffect}> {
  const {credentials} = options;
  const {nodeHttpFetch} = await import('../../lib/node-transport.js');
  const report = await runConformance({
    apiUrl: credentials.apiUrl,
    apiKey: credentials.apiKey,
    fetch: nodeHttpFetch(options.env),
    rateLimit: options.rateLimit,
  });
  return {...report, rate_limit: await settleRateLimit(report, options)};
}

/**
 * The 429 check locks the caller's address out. Against an emulator that is never left so: its limiter is reset
 * at once (the caller's next command works); against any other deployment the report says how long to wait.
 */
async function settleRateLimit(
  report: ConformanceReport,
  options: CheckDeploymentOptions,
): Promise<RateLimitEffect> {
  if (!options.rateLimit) {
    return {
      tripped: false,
      reset: false,
      summary: 'untouched: the 429 check was left out (--skip-rate-limit)',
    };
  }
  const retryAfter = report.locked_out?.retry_after;
  if (!report.locked_out) {
    return {tripped: false, reset: false, summary: 'not reached: the 429 check never got a 429'};
  }
  const control = await emulatorControlFor(report.api_url, {env: options.env}).catch(() => undefined);
  if (control) {
    try {
      await control.resetLimiter();
      return {
        tripped: true,
        reset: true,
        summary:
          "the 429 check locked this address out, and the emulator's limiter was reset after it: nothing waits on a 429",
      };
    } catch {
      // Reported below as a lockout: the wait is what the caller meets.
    }
  }
  return {
    tripped: true,
    reset: false,
    summary: `the 429 check locked this address out${retryAfter ? ` for ${retryAfter} s` : ''}; wait before the next request, or pass --skip-rate-limit next time`,
  };
}
