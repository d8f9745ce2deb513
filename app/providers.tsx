"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { z } from "zod";

// zod compiles its object parsers with `new Function` when it may, and finds out whether it may
// by trying: under the pages' Content-Security-Policy (no eval) each try is a reported violation.
// In the browser it parses without compiling; the server keeps the faster compiled parsers.
if (typeof window !== "undefined") z.config({ jitless: true });

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 2000 } } }));
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
