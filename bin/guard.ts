// The guard CLI in this repository (`npm run --silent guard -- …`); the package ships it as `sandshell-guard`.
import "../src/cli/guard.ts";
