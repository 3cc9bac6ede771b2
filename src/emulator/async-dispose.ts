// `await using` needs Symbol.asyncDispose. Where the runtime has none, it is defined as Node defines it
// (Symbol.for('nodejs.asyncDispose')), so every library that polyfills it the same way agrees on the symbol.
if (typeof (Symbol as {asyncDispose?: symbol}).asyncDispose !== 'symbol') {
  Object.defineProperty(Symbol, 'asyncDispose', {
    value: Symbol.for('nodejs.asyncDispose'),
    writable: false,
    enumerable: false,
    configurable: false,
  });
}

/** Symbol.asyncDispose, defined where the runtime lacks it. */
export const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose;
