// What one doctor check reports, and how a list of them adds up: the record `svc doctor --json` prints.

export const DOCTOR_LANES = ['system', 'clock', 'network', 'auth', 'emulator'] as const;
export type DoctorLane = (typeof DOCTOR_LANES)[number];
export type DoctorStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  id: string;
  lane: DoctorLane;
  status: DoctorStatus;
  /** What was found, in one sentence. */
  detail: string;
  /** What to do about it, for a warn or a fail. */
  fix?: string;
}

export interface DoctorReport {
  checks: DoctorCheck[];
  ok: number;
  warn: number;
  fail: number;
}

export function check(
  id: string,
  lane: DoctorLane,
  status: DoctorStatus,
  detail: string,
  fix?: string,
): DoctorCheck {
  return fix === undefined || status === 'ok' ? {id, lane, status, detail} : {id, lane, status, detail, fix};
}

/** The checks in lane order (each lane's in the order they were made), with the counts. */
export function report(checks: readonly DoctorCheck[]): DoctorReport {
  const ordered = DOCTOR_LANES.flatMap((lane) => checks.filter((c) => c.lane === lane));
  const count = (s: DoctorStatus) => ordered.filter((c) => c.status === s).length;
  return {checks: ordered, ok: count('ok'), warn: count('warn'), fail: count('fail')};
}

/** Resolves to what `work` gives, or to `onTimeout()` when it takes longer than `ms`. */
export async function within<T>(ms: number, work: Promise<T>, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
