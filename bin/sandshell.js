#!/usr/bin/env node
// The package's `sandshell` command (serve, guard): the compiled src/cli/sandshell.ts.
import "../dist/lib/cli/sandshell.js";
