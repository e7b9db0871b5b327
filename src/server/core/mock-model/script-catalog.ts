import { AppError } from "../errors/app-error";
import { isScriptName, listMockScripts, parseMockScript, readMockScript, type MockScript } from "./mock-script";
import type { MockModelOptions } from "./mock-model-types";

const MAX_CONVERSATIONS = 10_000;

/**
 * Scripts with `alternate`: each new conversation naming the script gets the next of [the script,
 * ...alternate] in turn, and keeps it for every later request of that conversation.
 */
function createAlternation() {
  const chosen = new Map<string, string>();
  const started = new Map<string, number>();
  return (options: { name: string; script: MockScript; key: string | null }): string => {
    const { name, script, key } = options;
    if (script.alternate.length === 0) return name;
    if (key === null)
      throw new AppError({
        code: "BAD_REQUEST",
        message: `Mock script "${name}" alternates by conversation, and this request names none (Codex sends prompt_cache_key or a session_id header, Claude Code its session id; Gemini requests carry none, so such scripts cannot alternate for Gemini CLI).`,
      });
    const remembered = chosen.get(`${name}\0${key}`);
    if (remembered) return remembered;
    const cycle = [name, ...script.alternate];
    const n = started.get(name) ?? 0;
    started.set(name, n + 1);
    const pick = cycle[n % cycle.length] ?? name;
    if (chosen.size >= MAX_CONVERSATIONS) chosen.delete(chosen.keys().next().value ?? "");
    chosen.set(`${name}\0${key}`, pick);
    return pick;
  };
}

/** The script a request plays, or the 404 to answer when there is none. */
export type ScriptChoice = { ok: true; script: MockScript; played: string } | { ok: false; message: string };

/** The scripts a mock model serves (in memory, then `scriptsDir`), shared by every API it speaks. */
export function createScriptCatalog(options: Pick<MockModelOptions, "scripts" | "scriptsDir">) {
  const inMemory = new Map<string, MockScript>();
  for (const [name, json] of Object.entries(options.scripts ?? {})) inMemory.set(name, parseMockScript({ name, json }));
  const alternation = createAlternation();

  function findScript(name: string): MockScript | null {
    const script = inMemory.get(name);
    if (script) return script;
    return options.scriptsDir && isScriptName(name) ? readMockScript({ dir: options.scriptsDir, name }) : null;
  }

  return {
    /** The script `model` names, or the one its alternation picks for this conversation (`key`). */
    choose(model: string, key: string | null): ScriptChoice {
      const script = findScript(model);
      if (!script) {
        const available = [...inMemory.keys(), ...(options.scriptsDir ? listMockScripts(options.scriptsDir) : [])];
        return {
          ok: false,
          message: `No mock script is named "${model}". Available: ${available.join(", ") || "none"}.`,
        };
      }
      const played = alternation({ name: model, script, key });
      const playing = played === model ? script : findScript(played);
      if (!playing)
        return { ok: false, message: `Mock script "${model}" alternates with "${played}", which does not exist.` };
      return { ok: true, script: playing, played };
    },
  };
}
export type ScriptCatalog = ReturnType<typeof createScriptCatalog>;
