import { displayPath, type BytePath } from "../../../lib/files/byte-path";
import type { Conflict } from "./apply-conflict";
import type { ApplyPlan } from "./apply-plan";
import { escapeDescription, finalTreeLookup, projectLookup, resolveLink } from "./link-resolution";

/**
 * Symlinks that would lead outside the project after the apply, each followed through every link on
 * its way in the tree the apply would leave (link-resolution.ts):
 *  - every symlink the plan creates or changes;
 *  - every symlink of the snapshot the plan leaves alone that stays inside the project now but would
 *    leave it afterwards (the plan changed a link it goes through).
 * A plan that touches no symlink cannot change where any link leads, so it costs nothing.
 */
export async function escapingLinks(options: {
  root: string;
  plan: ApplyPlan;
  existingLinks: readonly BytePath[];
}): Promise<Conflict[]> {
  const { root, plan } = options;
  const newLinks = plan.steps.filter((step) => step.after?.type === "symlink");
  if (newLinks.length === 0) return [];
  const final = finalTreeLookup({ root, steps: plan.steps });
  const conflicts: Conflict[] = [];
  for (const step of newLinks) {
    const target = step.after?.target ?? "";
    const resolution = await resolveLink({ rel: step.path, target, lookup: final });
    if (resolution.inside) continue;
    const through = resolution.via === step.path ? "" : ` (through ${displayPath(resolution.via)})`;
    conflicts.push({
      path: step.path,
      reason: "symlink-escapes",
      message: `${displayPath(step.path)}: the new symlink points to ${displayPath(target)}, outside the project: ${escapeDescription(resolution, resolution.via === step.path)}${through}.`,
    });
  }
  const touched = new Set(plan.steps.map((step) => step.path));
  const now = projectLookup(root);
  for (const rel of options.existingLinks) {
    if (touched.has(rel)) continue;
    const current = await now(rel);
    if (current?.type !== "symlink") continue;
    if (!(await resolveLink({ rel, target: current.target, lookup: now })).inside) continue;
    const after = await resolveLink({ rel, target: current.target, lookup: final });
    if (after.inside) continue;
    conflicts.push({
      path: rel,
      reason: "symlink-escapes",
      message: `${displayPath(rel)}: this existing symlink would lead outside the project after the apply: the plan changes a symlink on its way (${escapeDescription(after, false)}).`,
    });
  }
  return conflicts;
}
