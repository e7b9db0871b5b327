import type { ESLint } from "eslint";

export interface Layer {
  importer: RegExp;
  except?: RegExp;
  target: RegExp;
  typesAllowed?: boolean;
  message: string;
}
export declare const LAYERS: Layer[];
declare const plugin: ESLint.Plugin;
export default plugin;
