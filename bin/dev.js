#!/usr/bin/env node
// Development entry: runs the compiled commands after a fresh `npm run build`.
import {execute} from '@oclif/core';

await execute({development: true, dir: import.meta.url});
