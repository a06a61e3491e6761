// A Node program as a user of the package writes it: the guard, and a sandbox on the embedded runtime (no node-pty
// needed). Prints one JSON line for the test.
import { createGuard, type Verdict } from "sandshell/guard";
import { createSandbox, type Sandbox } from "sandshell/node";

const guard = await createGuard({ policy: "balanced" });
const verdicts: Verdict[] = [guard.check("rm -rf /"), guard.check("ls -la")];

const sandbox: Sandbox = await createSandbox({ runtime: "embedded" });
await sandbox.callTool("write_file", { path: "a.txt", content: "from node\n" });
const result = await sandbox.callTool("bash", { command: "cat a.txt && echo done" });
await sandbox.close();
const first = result.content[0];
console.log(JSON.stringify({ decisions: verdicts.map((v) => v.decision), text: first?.type === "text" ? first.text : null }));
