// What the OS sandbox hides from the shell and lets it write: the library's file system rules for one sandbox (the
// host user's home and its credential paths, the host's root-owned secrets, the other sandboxes' folders hidden;
// writes only to the workspace and the private temp folder, less the protected names).

import { existsSync, readdirSync } from "node:fs";
import { delimiter, join, sep } from "node:path";
import { isInside } from "../../lib/paths.ts";
import { sandboxesRoot } from "./private-dirs.ts";
import type { SandboxDirs } from "./sandbox.ts";

/**
 * Credential paths under the host user's home, always hidden: also when an allowRead re-opens the folder they are in
 * (the rest of the home is hidden too, except the top folders of programs on PATH such as ~/.cargo or ~/.local).
 */
export const CREDENTIAL_PATHS = [
  ".ssh", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub", ".docker", ".kube", ".gnupg",
  ".netrc", ".npmrc", ".yarnrc", ".pypirc", ".git-credentials", ".cargo/credentials", ".cargo/credentials.toml",
  ".terraform.d/credentials.tfrc.json", ".vault-token", ".pgpass", ".my.cnf",
] as const;

/**
 * Root-owned secrets of the host, hidden where they exist. When the host process runs as root, the sandbox's uid 0
 * is the host's root, so file modes alone do not keep these from the shell (bubblewrap maps only that one uid, so
 * files of other users keep their modes). `~root` is hidden like the host user's home.
 */
export const HOST_SECRETS = [
  "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd", "/etc/sudoers", "/etc/sudoers.d",
  "/etc/ssl/private", "/etc/pki/tls/private", "/etc/letsencrypt", "/etc/krb5.keytab", "/etc/ipsec.secrets", "/etc/wireguard",
  "/etc/NetworkManager/system-connections", "/var/lib/sss", "/root",
] as const;

/** The host's secret paths that exist now, the ssh host keys (`/etc/ssh/ssh_host_*_key`) among them. */
function hostSecrets(): string[] {
  const found: string[] = HOST_SECRETS.filter((path) => existsSync(path));
  try {
    for (const name of readdirSync("/etc/ssh")) if (/^ssh_host_.*_key$/.test(name)) found.push(`/etc/ssh/${name}`);
  } catch {
    // no /etc/ssh
  }
  return found;
}

/** The file system part of the library's config for one sandbox. */
export function fsRules(p: SandboxDirs & { hostHome: string; path: string; protect: string[] }): {
  allowWrite: string[];
  denyWrite: string[];
  denyRead: string[];
  allowRead: string[];
} {
  const own = [p.workspace, p.tempDir];
  const denyRead: string[] = [sandboxesRoot()];
  // The command folder: read, never written (it is in no allowWrite).
  const allowRead: string[] = [...own, ...(p.commandDir !== undefined ? [p.commandDir] : [])];
  const home = p.hostHome;
  if (home !== "/" && home !== "" && !own.some((d) => isInside(home, d))) {
    // The host user's home is hidden, except the top folders that hold programs on PATH (~/.cargo, ~/.local, …).
    denyRead.push(home);
    for (const dir of p.path.split(delimiter)) {
      if (!dir.startsWith(home + sep)) continue;
      const top = join(home, dir.slice(home.length + 1).split(sep)[0]!);
      if (!allowRead.includes(top)) allowRead.push(top);
    }
  }
  // Named too: a deny more specific than an allowRead still holds.
  for (const rel of CREDENTIAL_PATHS) {
    const abs = join(home, rel);
    if (existsSync(abs) && !own.some((d) => isInside(abs, d))) denyRead.push(abs);
  }
  for (const secret of hostSecrets()) if (!own.some((d) => isInside(d, secret) || isInside(secret, d))) denyRead.push(secret);
  // The library's own default write path, shared by every sandbox on the host: not a channel between them. Then the
  // workspace's files that configure what runs outside the sandbox (protect.ts).
  return { allowWrite: own, denyWrite: ["/tmp/claude", ...p.protect], denyRead, allowRead };
}
