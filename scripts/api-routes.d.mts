export const API_ROUTES: Readonly<Record<string, string>>;
