import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { RouterProvider } from "react-router";
import { ApiError } from "../shared/api/errors";
import { I18nProvider } from "../shared/i18n/i18n";
import { createAppRouter } from "./router";

export function App() {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { refetchOnWindowFocus: true, staleTime: 2000, retry: retryOnce } },
      }),
  );
  const [router] = useState(createAppRouter);
  return (
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <RouterProvider router={router} />
      </I18nProvider>
    </QueryClientProvider>
  );
}

/** One retry, except after a 401: that waits for the access token (the dialog), then everything refetches. */
function retryOnce(failures: number, error: unknown): boolean {
  return failures < 1 && !(error instanceof ApiError && error.status === 401);
}
