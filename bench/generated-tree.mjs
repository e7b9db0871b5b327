import fs from "node:fs";
import path from "node:path";

/** A deterministic tree: 1,000 directories in two levels, 95% text sources, 5% binary files. */
export function generateTree(root, { files: FILES, totalBytes: TOTAL_BYTES }) {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = [
    "const",
    "value",
    "return",
    "function",
    "import",
    "export",
    "await",
    "snapshot",
    "project",
    "workspace",
    "if",
    "else",
    "for",
    "let",
  ];
  const average = TOTAL_BYTES / FILES;
  const binary = Buffer.alloc(Math.ceil(average * 2));
  for (let i = 0; i < binary.length; i++) binary[i] = Math.floor(random() * 256);
  let written = 0;
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, `pkg-${i % 40}`, `module-${Math.floor(i / 40) % 25}`);
    if (i < 1000) fs.mkdirSync(dir, { recursive: true });
    const remaining = TOTAL_BYTES - written;
    const size = i === FILES - 1 ? remaining : Math.max(1, Math.min(remaining, Math.round(average * (0.5 + random()))));
    let content;
    if (i % 20 === 0) content = binary.subarray(0, Math.min(size, binary.length));
    else {
      let text = "";
      for (let line = 0; text.length < size; line++)
        text += `${words[Math.floor(random() * words.length)]} v${i}_${line} = ${Math.floor(random() * 1e9)};\n`;
      content = Buffer.from(text.slice(0, size));
    }
    fs.writeFileSync(path.join(dir, `file-${i}.${i % 20 === 0 ? "bin" : "ts"}`), content);
    written += content.length;
  }
  return written;
}
