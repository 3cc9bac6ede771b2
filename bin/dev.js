#!/usr/bin/env node
// Development entry: runs the compiled commands after a fresh `npm run build`.
require('@oclif/core')
  .execute({development: true, dir: __filename})
  .catch((err) => {
    process.stderr.write(`svc: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  });
