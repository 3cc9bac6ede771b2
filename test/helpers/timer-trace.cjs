// Preloaded (NODE_OPTIONS=--require) into the long-running commands test/e2e/hints.test.ts starts: on SIGUSR2 it
// writes, into SVC_TIMER_TRACE_DIR, where each timer still pending was set, with the process's libuv handles, so a
// process that outlives SIGTERM names the code keeping it alive. Timers of `node:timers` imports are not seen.
const {writeFileSync} = require('node:fs');
const {join} = require('node:path');
const {promisify} = require('node:util');

const dir = process.env.SVC_TIMER_TRACE_DIR;
if (dir) {
  const pending = new Map();
  const native = {
    setTimeout: globalThis.setTimeout,
    setInterval: globalThis.setInterval,
    clearTimeout: globalThis.clearTimeout,
    clearInterval: globalThis.clearInterval,
  };
  const traced = (set, repeats) =>
    function traced(fn, ms, ...args) {
      const where = new Error('set here').stack.split('\n').slice(2, 12).join('\n');
      let timer;
      const run =
        typeof fn === 'function'
          ? function (...a) {
              if (!repeats) pending.delete(timer);
              return fn.apply(this, a);
            }
          : fn;
      timer = set(run, ms, ...args);
      pending.set(timer, {ms, repeats, where});
      return timer;
    };
  const tracedTimeout = traced(native.setTimeout, false);
  // util.promisify(setTimeout) still gives the promise form.
  tracedTimeout[promisify.custom] = native.setTimeout[promisify.custom];
  const cleared = (clear) =>
    function cleared(timer) {
      pending.delete(timer);
      return clear(timer);
    };
  globalThis.setTimeout = tracedTimeout;
  globalThis.setInterval = traced(native.setInterval, true);
  globalThis.clearTimeout = cleared(native.clearTimeout);
  globalThis.clearInterval = cleared(native.clearInterval);

  process.on('SIGUSR2', () => {
    const timers = [...pending]
      .filter(([t]) => typeof t?.hasRef !== 'function' || t.hasRef())
      .map(([, t]) => t);
    const handles = process.report.getReport().libuv.filter((h) => h.is_referenced && h.is_active);
    const trace = {resources: process.getActiveResourcesInfo(), handles, timers};
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(trace, null, 1));
  });
}
