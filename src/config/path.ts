// A place in the config: `targets[1].health.tags` is ['targets', 1, 'health', 'tags'].
export type ConfigPath = ReadonlyArray<string | number>;

export function formatPath(path: ConfigPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out || '(top level)';
}
