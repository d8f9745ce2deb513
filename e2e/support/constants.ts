export const E2E_ADMIN_TOKEN = "e2e-admin-token-0123456789";

/** Where the team-tools spec serves its stand-in model and its MCP server: the e2e server lists both as allowed endpoints. */
export const E2E_MODEL_PORT = 3291;
export const E2E_MCP_PORT = 3292;
