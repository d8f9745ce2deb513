export const SECURITY_HEADERS: Readonly<Record<string, string>>;
export const DATA_CONTENT_SECURITY_POLICY: string;
