/** A request the front door turns away, and how. */
export interface Refusal {
  /** Under /api: answered in JSON, as every API answer is. */
  api: boolean;
  status: number;
  code: string;
  message: string;
  headers: Record<string, string>;
}

export function hostName(value: string): string | null;
export function allowedHosts(
  env: Partial<Record<"HOST" | "PARLEY_ALLOWED_HOSTS" | "PARLEY_PUBLIC_URL", string>>,
): (name: string) => boolean;
export function frontDoorRefusal(
  request: { method: string; target: string; host: string | undefined },
  isAllowedHost: (name: string) => boolean,
): Refusal | null;
export function refusalAnswer(refused: Refusal): { status: number; headers: Record<string, string>; body: string };
export function rawRefusal(refused: Refusal): string;
export function unparsedRefusal(code: string, rawPacket: Buffer | undefined, isAllowedHost: (name: string) => boolean): Refusal;
