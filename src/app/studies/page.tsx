import { StudyList } from "./study-list";

export default async function StudiesPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { projectId } = await searchParams;
  return <StudyList projectId={typeof projectId === "string" && projectId !== "" ? projectId : null} />;
}
