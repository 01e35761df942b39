import { Link } from "react-router";
import { useI18n } from "../shared/i18n/i18n";

export function NotFound() {
  const { t } = useI18n();
  return (
    <section>
      <h1>{t("notFound.title")}</h1>
      <p>
        <Link to="/runs">{t("nav.runs")}</Link>
      </p>
    </section>
  );
}
