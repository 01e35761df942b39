import { NavLink, Outlet } from "react-router";
import { HealthBanner } from "../features/health/components/HealthBanner";
import { useRunListEvents } from "../features/runs/api/useRunListEvents";
import { LANGUAGES, useI18n, type Language } from "../shared/i18n/i18n";

export function Layout() {
  const { t, language, setLanguage } = useI18n();
  useRunListEvents();
  return (
    <>
      <a className="skip-link" href="#main" onClick={(e) => {
        e.preventDefault();
        document.getElementById("main")?.focus();
      }}>
        {t("nav.skip")}
      </a>
      <header className="app-header">
        <span className="brand">Rabbithole</span>
        <nav aria-label={t("nav.label")}>
          <NavLink to="/runs" end>
            {t("nav.runs")}
          </NavLink>
          <NavLink to="/runs/new">{t("nav.newRun")}</NavLink>
          <NavLink to="/collections">{t("nav.collections")}</NavLink>
        </nav>
        <label className="language">
          <span>{t("nav.language")}</span>
          <select value={language} onChange={(e) => setLanguage(e.target.value as Language)}>
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {l === "de" ? "Deutsch" : "English"}
              </option>
            ))}
          </select>
        </label>
      </header>
      <main id="main" tabIndex={-1}>
        <HealthBanner />
        <Outlet />
      </main>
    </>
  );
}
