// Characters that change how text around them is shown without being seen
// themselves: bidi controls (U+202E turns "ok-check" into a name that reads
// otherwise) and zero-width characters (two check names that look the same).
// Text from a node is shown with each of them written out, e.g. ⟨U+202E⟩, so
// a node cannot spoof a check name or an error on a page.

const INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** The text with every bidi control and zero-width character written as ⟨U+XXXX⟩. */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}
