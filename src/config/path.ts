// A place in the config: `targets[1].health.tags` is ['targets', 1, 'health', 'tags'].
import { shorten } from '../util/text.js';

export type ConfigPath = ReadonlyArray<string | number>;

/** Keys are the user's text: a long one is cut so that a message stays readable. */
const MAX_KEY_SHOWN = 80;

export function formatPath(path: ConfigPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = shorten(part, MAX_KEY_SHOWN);
      out += out ? `.${key}` : key;
    }
  }
  return out || '(top level)';
}
