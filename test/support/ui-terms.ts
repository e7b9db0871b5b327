/**
 * The domain words the UI uses one way (issue 26, point 11; src/shared/domain-names.ts), as the forms they must
 * not take: test/ui-terms.test.ts checks the source strings, e2e/study-names.spec.ts the rendered pages.
 */

/** Forms a domain word must not take, each with the word it should be. */
export const FORBIDDEN: { word: string; form: RegExp }[] = [
  // trials: "Trial 3.2", never "#3.2", "Trial #3", "(repeat 2)" after a label
  { word: "trial", form: /#(\d+|\$\{\})\.(\d+|\$\{\})/ },
  { word: "trial", form: /\bTrial #/i },
  { word: "trial", form: /\(repeat (\d+|\$\{\})\)/ },
  { word: "trial", form: /\b(runs?|attempt) #/i },
  // configurations: "Configuration 3", never "Config 3", "config 3", "configs", "variant", "arm"
  { word: "configuration", form: /\bConfig\b/ },
  { word: "configuration", form: /\bconfig:? (\d|\$\{\})/i },
  { word: "configuration", form: /\bconfigs\b/i },
  { word: "configuration", form: /\b(variants?|arms?|candidates?)\b/i },
  // repeats: "3 repeats", never "3 runs", "replicates", "iterations"
  { word: "repeat", form: /\b(replicates?|iterations?|reps)\b/i },
  { word: "repeat", form: /\b(\d+|\$\{\}) runs\b/ },
  // verdicts: "verdict", never "score" or "grade" (Wilson's and Newcombe's score intervals are statistics)
  { word: "verdict", form: /\bgrade[sd]?\b/i },
  { word: "verdict", form: /\bscores?\b(?! interval)/i },
  // follow-ups (review feedback sent back to the agent): "follow-up of Trial 3.2", never "child trial", "followup",
  // "re-prompt"; what a reviewer writes is a "comment", never an "annotation" or a "remark"
  { word: "follow-up", form: /\bchild trials?\b|\bfollowups?\b|\bre-?prompt/i },
  { word: "comment", form: /\b(annotations?|remarks?)\b/i },
  // the verdict parser's name is not a word for users: "judged by the exit code"
  { word: "exit code", form: /\(exit-code\)|\bexit-code verdict/i },
];
