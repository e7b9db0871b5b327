/** Types of compose-images.mjs for the TypeScript tests that call it. */
export interface ComposeImageSettings {
  NODE_IMAGE: string;
  REDIS_IMAGE: string;
  MODULES_IMAGE: string;
  PACKAGE_IMAGE: string;
  INVARIANT_DOCKERFILE: string;
}

export function prepareComposeImages(options?: {
  base?: string;
  log?: (message: string) => void;
}): ComposeImageSettings;
