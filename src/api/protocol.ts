// Names that ride on the port besides plain MCP, shared by the server (src/api) and the client SDK
// (src/client) without pulling the server into a host page's bundle.

/** tools/call `arguments` given as a raw JSON string travel past the SDK's schema under this _meta key. */
export const RAW_ARGUMENTS_KEY = "sandshell/rawArguments";

/** Where the structured facts of an approval ride in elicitation/create's _meta (beside the text for a person). */
export const APPROVAL_META_KEY = "sandshell/approval";

/** The decisions an approval elicitation offers. */
export const APPROVAL_CHOICES = ["allow-once", "always", "deny"] as const;
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number];
