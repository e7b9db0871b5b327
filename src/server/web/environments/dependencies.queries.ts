import type { Db } from "../../core/db/client";
import { dependencyStepSchema, type DependencyStep } from "../../../shared/dependency-schemas";

/** A project's edited dependency step (Project.dependencyStep, JSON); null = use the detected one. */
export function createDependencyQueries(db: Db) {
  return {
    async step(projectId: string): Promise<DependencyStep | null> {
      const row = await db.project.findUnique({ where: { id: projectId }, select: { dependencyStep: true } });
      if (!row?.dependencyStep) return null;
      try {
        const parsed = dependencyStepSchema.safeParse(JSON.parse(row.dependencyStep));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    },
    async setStep(projectId: string, step: DependencyStep | null): Promise<void> {
      await db.project.update({
        where: { id: projectId },
        data: { dependencyStep: step ? JSON.stringify(step) : null },
      });
    },
  };
}

export type DependencyQueries = ReturnType<typeof createDependencyQueries>;
