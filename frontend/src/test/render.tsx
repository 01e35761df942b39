import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { I18nProvider, type Language } from "../shared/i18n/i18n";

/** Renders `ui` with a fresh query client and the UI in `language`. */
export function renderWithProviders(ui: ReactElement, language: Language = "en") {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <I18nProvider language={language}>{ui}</I18nProvider>
    </QueryClientProvider>,
  );
}
