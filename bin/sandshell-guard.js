#!/usr/bin/env node
// The package's `sandshell-guard` command: the compiled src/cli/guard.ts.
import "../dist/lib/cli/guard.js";
