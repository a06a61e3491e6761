// Every name that rides on the wire besides plain MCP, in one place: the window messages of the handshake, the control
// messages on a port, and the _meta keys of tools/call and elicitation/create. Shared by the server (src/api) and the
// client SDK (src/client) without pulling the server into a host page's bundle.

/** Window messages of the handshake (docs/api.md). */
export const HELLO_TYPE = "sandshell:hello";
export const CONNECT_TYPE = "sandshell:connect";
export const READY_TYPE = "sandshell:ready";
/** What the sandbox page announces to its parent, and answers a hello with. */
export const READY = Object.freeze({ type: READY_TYPE, protocol: "mcp", version: 1 } as const);

/** Control messages on a port: the sandbox refused the page's origin; the other end is closing. */
export const REJECTED_TYPE = "sandshell:rejected";
export const CLOSED_TYPE = "sandshell:closed";

/** The sandbox's own _meta keys start with this; a client may not send one (the gate refuses the request). */
export const RESERVED_META_PREFIX = "sandshell/";

/**
 * tools/call `arguments` given as a raw JSON string travel past the SDK's schema under this _meta key, put there by
 * the server's gate; a client sends the string as `arguments` itself.
 */
export const RAW_ARGUMENTS_KEY = "sandshell/rawArguments";

/** Where the structured facts of an approval ride in elicitation/create's _meta (beside the text for a person). */
export const APPROVAL_META_KEY = "sandshell/approval";

/** The decisions an approval elicitation offers. */
export const APPROVAL_CHOICES = ["allow-once", "always", "deny"] as const;
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number];
