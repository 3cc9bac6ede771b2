// The checks of `svc webhooks test-receiver` that put a receiver under load instead of grading one delivery:
// `--race` (one event as several attempts at once) and `--burst` (many events on a schedule). Their options are
// checked before anything is sent; they run after the battery, and only once the valid delivery was accepted
// (a receiver that refuses it would fail them for that reason alone).
import {
  type BurstPlan,
  type BurstReport,
  BURST_CHECK_ID,
  planBurst,
  runBurst,
  steadyBurstGot,
} from './burst.js';
import type {PostedAnswer} from './post-delivery.js';
import {planRace, RACE_CHECK_ID, type RacePlan, type RaceReport, runRace, steadyRaceGot} from './race.js';
import type {CheckVerdict} from './receiver-checks.js';

export interface LoadCheckOptions {
  /** `--race [N]`: attempts of one event sent at once; undefined: no race check. */
  race?: number;
  /** `--probe URL`: where the race check reads how many times an event was applied. */
  probe?: string;
  /** `--burst RATE[:DURATION]`, e.g. `50/s:20s`. */
  burst?: string;
}

export interface LoadPlan {
  race?: RacePlan;
  burst?: BurstPlan;
}

/** What `--json` carries besides the verdicts: the race's and the burst's numbers. */
export interface LoadReport {
  race?: RaceReport;
  burst?: BurstReport;
}

/** The options checked, each refused with a usage error before anything is sent. */
export function planLoadChecks(options: LoadCheckOptions): LoadPlan {
  const race = planRace(options.race, options.probe);
  const burst = planBurst(options.burst);
  return {...(race ? {race} : {}), ...(burst ? {burst} : {})};
}

export interface LoadCheckContext {
  url: URL;
  secret: string;
  describe(answer: PostedAnswer): string;
  /** The valid delivery's verdict: the load checks run only when it passed. */
  baseline: CheckVerdict | undefined;
}

const NOT_SENT =
  'not sent: the valid delivery was not accepted, so the receiver would fail this for that alone';

/** Runs the planned load checks in order, telling `record` each verdict. */
export async function runLoadChecks(
  plan: LoadPlan,
  ctx: LoadCheckContext,
  record: (verdict: CheckVerdict) => void,
): Promise<LoadReport> {
  const report: LoadReport = {};
  const ready = ctx.baseline?.status === 'pass';
  if (plan.race) {
    if (!ready) record(notSent(RACE_CHECK_ID, 'The same event sent as several attempts at once'));
    else {
      const {verdict, report: race} = await runRace(ctx, plan.race);
      record(verdict);
      report.race = race;
    }
  }
  if (plan.burst) {
    if (!ready) record(notSent(BURST_CHECK_ID, 'A burst of deliveries is answered in time'));
    else {
      const {verdict, report: burst} = await runBurst(ctx, plan.burst);
      record(verdict);
      report.burst = burst;
    }
  }
  return report;
}

function notSent(id: string, title: string): CheckVerdict {
  return {
    id,
    group: 'delivery',
    title,
    status: 'skip',
    expected: 'sent once the valid delivery is accepted',
    got: NOT_SENT,
    fix: '',
  };
}

/**
 * What a verdict says in a report that must be the same bytes on every run against the same receiver (JUnit):
 * the race's and the burst's outcome without their measured figures, any other check's `got` as it is.
 */
export function steadyGot(verdict: CheckVerdict, report: LoadReport): string {
  if (verdict.id === RACE_CHECK_ID) return steadyRaceGot(verdict, report.race);
  if (verdict.id === BURST_CHECK_ID) return steadyBurstGot(verdict, report.burst);
  return verdict.got;
}
