/**
 * A command typed in one line, split into argv as a POSIX shell would split it (quotes and
 * backslashes; nothing expanded, nothing run): "Choose Agent… → Another command…" asks for
 * the agent command in an input box instead of opening a raw array setting (issue 47).
 * Pure: unit tested.
 */

/** The argv of `line`, or an error message (an unclosed quote). */
export function splitCommandLine(line: string): string[] | { error: string } {
  const argv: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) argv.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) {
    return { error: `a ${quote === '"' ? 'double' : 'single'} quote is not closed` };
  }
  if (inWord) argv.push(word);
  return argv;
}

/** argv as one line the user can edit (quoted where needed), the inverse of splitCommandLine. */
export function joinCommandLine(argv: readonly string[]): string {
  return argv.map((arg) => (arg !== '' && /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`)).join(' ');
}
