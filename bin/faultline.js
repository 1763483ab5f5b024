#!/usr/bin/env node
// The CLI entry point. The TypeScript sources are compiled to dist/ by `npm install` (the
// `prepare` script), so the command runs on plain Node.js with no loader.
import('../dist/src/cli/main.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/src/cli')) {
    console.error('faultline: not built yet; run `npm install` (or `npm run build`) first');
    process.exit(1);
  }
  throw error;
});
