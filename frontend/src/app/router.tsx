import { HashRouter, Navigate, Route, Routes } from "react-router";
import { CollectionPage } from "../features/collections/components/CollectionPage";
import { CollectionsPage } from "../features/collections/components/CollectionsPage";
import { NewRunPage } from "../features/runs/components/NewRunPage";
import { RunPage } from "../features/runs/components/RunPage";
import { RunsPage } from "../features/runs/components/RunsPage";
import { Layout } from "./Layout";
import { NotFound } from "./NotFound";

/**
 * Routes live in the URL's hash (#/runs/abc): the server only ever serves index.html at the app's root, so
 * every page can be bookmarked and reloaded under any sub-path, and relative asset and API URLs stay
 * relative to index.html. Declarative routes (no data router: the pages load their data through React
 * Query), which keeps react-router's share of the bundle small.
 */
export function AppRoutes() {
  return (
    <HashRouter>
      <Routes>
        <Route path="/" element={<Layout />}>
          <Route index element={<Navigate to="/runs" replace />} />
          <Route path="runs" element={<RunsPage />} />
          <Route path="runs/new" element={<NewRunPage />} />
          <Route path="runs/:runId" element={<RunPage />} />
          <Route path="collections" element={<CollectionsPage />} />
          <Route path="collections/:name" element={<CollectionPage />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </HashRouter>
  );
}
