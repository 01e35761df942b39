import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../shared/api/errors";
import { I18nProvider } from "../shared/i18n/i18n";
import { AppRoutes } from "./router";

export function App() {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { refetchOnWindowFocus: true, staleTime: 2000, retry: retryOnce } },
      }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <AppRoutes />
      </I18nProvider>
    </QueryClientProvider>
  );
}

/** One retry, except after a 401: that waits for the access token (the dialog), then everything refetches. */
function retryOnce(failures: number, error: unknown): boolean {
  return failures < 1 && !(error instanceof ApiError && error.status === 401);
}
