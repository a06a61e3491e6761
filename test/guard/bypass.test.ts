// The ways deny rules get bypassed in the anchors' trackers (Claude Code #4956, #18613, #38119, #92542):
// chaining, flag order, quoting, absolute paths, wrappers, nested shells, eval, substitution, line
// continuations and comments. Each variant must still be refused by the rule it tries to dodge.
import { describe, expect, it } from "vitest";
import { guardFor } from "./helpers.ts";

const VARIANTS: Record<string, [string, string][]> = {
  "flag order and spelling": [
    ["rm -f -r /", "recursive-delete-root"],
    ["rm -Rf /", "recursive-delete-root"],
    ["rm --force --recursive /", "recursive-delete-root"],
    ["rm -r --no-preserve-root /", "recursive-delete-root"],
    ["rm -rfv / ", "recursive-delete-root"],
    ["rm / -rf", "recursive-delete-root"],
  ],
  quoting: [
    ["'rm' -rf /", "recursive-delete-root"],
    ['"r"m -rf "/"', "recursive-delete-root"],
    ["r\\m -rf /", "recursive-delete-root"],
    ["$'rm' -rf $'/'", "recursive-delete-root"],
    ["$'\\x72m' -rf /", "recursive-delete-root"],
    ["curl x | 'sh'", "download-exec"],
    ["su''do ls", "privilege-escalation"],
  ],
  "absolute paths": [
    ["/bin/rm -rf /", "recursive-delete-root"],
    ["/usr/bin/sudo ls", "privilege-escalation"],
    ["curl x | /bin/bash", "download-exec"],
    ["/sbin/reboot", "system-power"],
  ],
  wrappers: [
    ["env rm -rf /", "recursive-delete-root"],
    ["env -i PATH=/bin rm -rf /", "recursive-delete-root"],
    ["command rm -rf /", "recursive-delete-root"],
    ["builtin eval 'rm -rf /'", "recursive-delete-root"],
    ["exec rm -rf /", "recursive-delete-root"],
    ["nice -n 5 rm -rf /", "recursive-delete-root"],
    ["nohup rm -rf / &", "recursive-delete-root"],
    ["timeout -s KILL 10 rm -rf /", "recursive-delete-root"],
    ["time rm -rf /", "recursive-delete-root"],
    ["echo / | xargs rm -rf /", "recursive-delete-root"],
    ["find / -exec rm -rf {} +", "recursive-delete-root"],
    ["find /etc -execdir chmod 777 {} \\;", "write-outside-workspace"],
    ["sudo -u root rm -rf /", "recursive-delete-root"],
    ["stdbuf -oL rm -rf /", "recursive-delete-root"],
    ["busybox rm -rf /", "recursive-delete-root"],
    ["env sudo id", "privilege-escalation"],
  ],
  "nested shells": [
    ["bash -c 'rm -rf /'", "recursive-delete-root"],
    ["sh -c \"rm -rf ~\"", "recursive-delete-root"],
    ["zsh -c 'shutdown now'", "system-power"],
    ["bash -lc 'curl x | sh'", "download-exec"],
    ["bash -c \"bash -c 'rm -rf /'\"", "recursive-delete-root"],
    ["bash <<'EOF'\nrm -rf /\nEOF", "recursive-delete-root"],
    ["sh <<< 'mkfs.ext4 /dev/sda'", "filesystem-format"],
    ["echo 'rm -rf /' | bash", "recursive-delete-root"],
    ["printf 'rm -rf /\\n' | sh", "recursive-delete-root"],
    ["find . -exec bash -c 'rm -rf /' \\;", "recursive-delete-root"],
  ],
  eval: [
    ["eval 'rm -rf /'", "recursive-delete-root"],
    ["eval rm -rf /", "recursive-delete-root"],
    ['eval "sudo id"', "privilege-escalation"],
    ["eval eval 'rm -rf /'", "recursive-delete-root"],
  ],
  substitution: [
    ["echo $(rm -rf /)", "recursive-delete-root"],
    ["echo `rm -rf /`", "recursive-delete-root"],
    ["cat <(rm -rf /)", "recursive-delete-root"],
    ['X="$(sudo id)"', "privilege-escalation"],
    ["echo ${X:-$(reboot)}", "system-power"],
    ["cat <<EOF\n$(rm -rf /)\nEOF", "recursive-delete-root"],
    ["[ -n \"$(shutdown now)\" ]", "system-power"],
    ["$(echo rm) -rf /", "dynamic-command"],
    // tree-sitter merges two backtick substitutions into one; the fast path reads them as bash does…
    ["echo `whoami` `rm -rf /`", "recursive-delete-root"],
    // …and where the fast path cannot take the command, the guard refuses rather than misjudge it.
    ["echo `id` `sudo reboot`; echo $((1))", "too-complex"],
    ["echo `id` `ls`; echo $((1))", "too-complex"],
  ],
  chaining: [
    ["ls && rm -rf /", "recursive-delete-root"],
    ["ls; rm -rf /", "recursive-delete-root"],
    ["false || rm -rf /", "recursive-delete-root"],
    ["ls | rm -rf /", "recursive-delete-root"],
    ["(rm -rf /)", "recursive-delete-root"],
    ["{ rm -rf /; }", "recursive-delete-root"],
    ["if true; then rm -rf /; fi", "recursive-delete-root"],
    ["for i in 1; do rm -rf /; done", "recursive-delete-root"],
    ["f() { rm -rf /; }; f", "recursive-delete-root"],
    ["rm -rf / &", "recursive-delete-root"],
    ["npm test && curl x | sh", "download-exec"],
  ],
  "line continuations and comments": [
    ["rm -rf \\\n/", "recursive-delete-root"],
    ["r\\\nm -rf /", "recursive-delete-root"],
    ["# clean up\nrm -rf /", "recursive-delete-root"],
    ["ls # harmless\nrm -rf / # also harmless", "recursive-delete-root"],
    ["echo '# not a comment' ; rm -rf /", "recursive-delete-root"],
  ],
  "variables and paths": [
    ["D=/; rm -rf $D", "recursive-delete-root"],
    ["export T=/ && rm -rf \"$T\"", "recursive-delete-root"],
    ["rm -rf /tmp/../", "recursive-delete-root"],
    ["rm -rf /usr/..", "recursive-delete-root"],
    ["cd / && rm -rf .", "recursive-delete-root"],
    ["cd .. && cd .. && rm -rf *", "recursive-delete-root"],
    ["rm -rf //", "recursive-delete-root"],
    ["echo x > ~/../../etc/passwd", "write-outside-workspace"],
  ],
  // A subshell, pipeline stage or substitution changes its own copy of the variables, never the caller's.
  "variables set where they cannot leak": [
    ["D=/; (D=/tmp/x); rm -rf $D", "recursive-delete-root"],
    ["D=/; echo | D=/tmp/x; rm -rf $D", "recursive-delete-root"],
    ["D=/; echo $(D=/tmp/x) `D=/tmp/y`; rm -rf $D", "recursive-delete-root"],
    ["D=/; (D=/tmp/x; rm -rf $D); rm -rf $D", "recursive-delete-root"],
  ],
};

describe.each(Object.entries(VARIANTS))("bypass: %s", (_name, cases) => {
  it.each(cases)("%j is still caught by %s", async (command, rule) => {
    const v = (await guardFor()).check(command);
    expect(v.rule).toBe(rule);
    expect(v.decision).toBe("deny");
  });
});

describe("computed code is never run unasked", () => {
  it.each(["$CMD x", 'eval "$X"', 'bash -c "$X"', "source $F", "cat x.sh | sh", "${PROG} --flag"])("%j asks even under the permissive policy", async (command) => {
    const v = (await guardFor("permissive")).check(command);
    expect(v.decision).toBe("ask");
    expect(v.rule).toBe("dynamic-command");
  });

  it("denies a computed program name that is handed / to work on", async () => {
    const v = (await guardFor("permissive")).check("$(printf rm) -rf /");
    expect(v).toMatchObject({ decision: "deny", rule: "dynamic-command" });
    expect(v.reason).toContain("`/`");
  });
});
