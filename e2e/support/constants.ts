export const E2E_ADMIN_TOKEN = "e2e-admin-token-0123456789";

/**
 * Where the team-tools spec serves its stand-in model and its MCP server, beside the app's own port: the e2e server
 * (support/serve.mjs) lists both as allowed endpoints.
 */
export const E2E_MODEL_PORT = Number(process.env.E2E_PORT ?? 3210) + 1081;
export const E2E_MCP_PORT = Number(process.env.E2E_PORT ?? 3210) + 1082;
