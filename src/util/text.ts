// Bounded text: every place that shows text it does not control (a node's
// answer, a config value, a request path) cuts it here, so a message, a log
// line or a page stays readable and small however large the input.
//
// Two forms: `shorten` for values quoted inside a sentence (an ID, a path, a
// key), `truncate` for text a person reads on its own (a node's error, a poll
// trace), which also says how much was left out.

/** `text` when it has at most `max` characters, else its first `max` characters and `…`. */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `text` when it has at most `max` characters, else its first `max`, `…` and how many characters were left out. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** `text` on one line: every run of whitespace (newlines included) becomes one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}
