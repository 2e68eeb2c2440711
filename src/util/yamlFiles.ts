import fs from 'node:fs';

/** The .yaml/.yml file names in a folder, sorted; none when the folder does not exist. */
export function yamlFilesIn(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => /\.ya?ml$/.test(n))
      .sort();
  } catch {
    return [];
  }
}
