import { NewStudyForm } from "./new-study-form";

export default async function NewStudyPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { projectId, from } = await searchParams;
  return (
    <NewStudyForm
      initialProjectId={typeof projectId === "string" ? projectId : ""}
      fromStudyId={typeof from === "string" && from !== "" ? from : null}
    />
  );
}
