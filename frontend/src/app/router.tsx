import { createHashRouter, Navigate } from "react-router";
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
 * relative to index.html.
 */
export function createAppRouter() {
  return createHashRouter([
    {
      path: "/",
      element: <Layout />,
      children: [
        { index: true, element: <Navigate to="/runs" replace /> },
        { path: "runs", element: <RunsPage /> },
        { path: "runs/new", element: <NewRunPage /> },
        { path: "runs/:runId", element: <RunPage /> },
        { path: "collections", element: <CollectionsPage /> },
        { path: "collections/:name", element: <CollectionPage /> },
        { path: "*", element: <NotFound /> },
      ],
    },
  ]);
}
