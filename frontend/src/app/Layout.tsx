import { NavLink, Outlet } from "react-router";
import { HealthBanner } from "../features/health/components/HealthBanner";
import { useRunListEvents } from "../features/runs";
import { SignInGate } from "../features/session/components/SignInGate";
import { SignOutButton } from "../features/session/components/SignOutButton";
import { useAccessRequired } from "../shared/auth/useAccess";
import { LANGUAGES, useI18n, type Language } from "../shared/i18n/i18n";

export function Layout() {
  const { t, language, setLanguage } = useI18n();
  useRunListEvents();
  const locked = useAccessRequired();
  return (
    <>
      {locked && <SignInGate />}
      <a inert={locked} className="skip-link" href="#main" onClick={(e) => {
        e.preventDefault();
        document.getElementById("main")?.focus();
      }}>
        {t("nav.skip")}
      </a>
      <header className="app-header" inert={locked}>
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
        <SignOutButton />
      </header>
      <main id="main" tabIndex={-1} inert={locked}>
        <HealthBanner />
        <Outlet />
      </main>
    </>
  );
}
