import { createContext, useContext } from "react";
import type { ViewerQuery } from "../../gql/graphql.ts";

export type ViewerInfo = ViewerQuery["viewer"] & {
  /** Admins (and agents for the follow-up desk's changes): false for viewers, who see no buttons that would fail. */
  canWrite: boolean;
};

export const ViewerContext = createContext<ViewerInfo | null>(null);

/** The signed-in user, merchant and mode; `canWrite` is false for viewers, who see no buttons that would fail. */
export function useViewer(): ViewerInfo {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error("useViewer outside the signed-in layout");
  return viewer;
}
