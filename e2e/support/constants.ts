export const E2E_ADMIN_TOKEN = "e2e-admin-token-0123456789";
