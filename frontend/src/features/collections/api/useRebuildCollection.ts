import { useMutation } from "@tanstack/react-query";
import { rebuildCollection } from "../../../api/generated/sdk.gen";
import { unwrap } from "../../../shared/api/errors";

/** POST /api/collections/{name}/rebuild: the collection's vectors rebuilt from the catalog, as a job. */
export function useRebuildCollection() {
  return useMutation({
    mutationFn: (name: string) => unwrap(rebuildCollection({ path: { name } })),
  });
}
