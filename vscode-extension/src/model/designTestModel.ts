/**
 * Design test files (`*.hwf-test.json`) for the Test Explorer:
 * the cases a file's text lists, each with its range (the gutter icon's line), and the
 * server's `hwf.runDesignTests` answer read into what a test run reports (docs/commands.md,
 * "Design tests"). Tolerant (jsonc-parser never throws), pure, no VS Code API.
 */
import { Node as JsonNode, parseTree } from 'jsonc-parser';

/** Which files are design test files: fixed by the contract, not by a setting. */
export const TEST_FILE_GLOB = '**/*.hwf-test.json';
export const TEST_FILE_SUFFIX = '.hwf-test.json';

export interface Pos {
  line: number;
  character: number;
}
export interface Span {
  start: Pos;
  end: Pos;
}

export interface CaseSpot {
  name: string;
  index: number;
  range: Span;
}

/** Positions of a text's offsets (UTF-16 code units, as JavaScript strings count them). */
export function positionsOf(text: string): (offset: number) => Pos {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      starts.push(i + 1);
    }
  }
  return (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return { line: lo, character: offset - starts[lo] };
  };
}

function property(node: JsonNode, name: string): JsonNode | undefined {
  for (const member of node.children ?? []) {
    const [key, value] = member.children ?? [];
    if (key?.value === name) {
      return value;
    }
  }
  return undefined;
}

/**
 * The cases of a test file, in file order: those with a non-empty string name (the id
 * of a case is its name, unique in a valid file; a repeated name keeps its first case).
 */
export function testCases(text: string): CaseSpot[] {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const cases = root && root.type === 'object' ? property(root, 'cases') : undefined;
  if (!cases || cases.type !== 'array') {
    return [];
  }
  const at = positionsOf(text);
  const spots: CaseSpot[] = [];
  const seen = new Set<string>();
  (cases.children ?? []).forEach((item, index) => {
    const name = item.type === 'object' ? property(item, 'name') : undefined;
    if (name?.type !== 'string' || name.value === '' || seen.has(name.value as string)) {
      return;
    }
    seen.add(name.value as string);
    spots.push({ name: name.value as string, index, range: { start: at(item.offset), end: at(item.offset + item.length) } });
  });
  return spots;
}

/** One way a case's run differs from its `expect` (workflow/design_test_run.Difference). */
export interface Difference {
  part: string;
  node: string | null;
  expected: unknown;
  actual: unknown;
  message: string;
  range?: Span;
}

export interface CaseOutcome {
  name: string;
  index: number;
  passed: boolean;
  failures: string[];
  duration: number;
  range?: Span;
  differences: Difference[];
}

export interface FileError {
  pointer: string;
  case: string | null;
  msg: string;
  range?: Span;
}

export interface DesignTestAnswer {
  uri: string;
  design: string | null;
  cases: CaseOutcome[];
  errors: FileError[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function asSpan(value: unknown): Span | undefined {
  if (!isObject(value) || !isObject(value.start) || !isObject(value.end)) {
    return undefined;
  }
  const pos = (p: Record<string, unknown>): Pos | undefined =>
    typeof p.line === 'number' && typeof p.character === 'number' ? { line: p.line, character: p.character } : undefined;
  const start = pos(value.start);
  const end = pos(value.end);
  return start && end ? { start, end } : undefined;
}

function asDifference(value: unknown): Difference | undefined {
  if (!isObject(value) || typeof value.message !== 'string') {
    return undefined;
  }
  return {
    part: typeof value.part === 'string' ? value.part : '',
    node: typeof value.node === 'string' ? value.node : null,
    expected: value.expected,
    actual: value.actual,
    message: value.message,
    range: asSpan(value.range),
  };
}

function asCase(value: unknown): CaseOutcome | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.passed !== 'boolean') {
    return undefined;
  }
  const failures = Array.isArray(value.failures) ? value.failures.filter((f): f is string => typeof f === 'string') : [];
  const differences = Array.isArray(value.differences) ? value.differences.map(asDifference).filter((d): d is Difference => !!d) : [];
  return {
    name: value.name,
    index: typeof value.index === 'number' ? value.index : -1,
    passed: value.passed,
    failures,
    duration: typeof value.duration === 'number' ? value.duration : 0,
    range: asSpan(value.range),
    differences,
  };
}

/** The server's answer, checked field by field (anything else: undefined). */
export function asDesignTestAnswer(value: unknown): DesignTestAnswer | undefined {
  if (!isObject(value) || !Array.isArray(value.cases)) {
    return undefined;
  }
  const errors = Array.isArray(value.errors)
    ? value.errors.filter(isObject).map((e) => ({
        pointer: typeof e.pointer === 'string' ? e.pointer : '',
        case: typeof e.case === 'string' ? e.case : null,
        msg: typeof e.msg === 'string' ? e.msg : 'invalid test file',
        range: asSpan(e.range),
      }))
    : [];
  return {
    uri: typeof value.uri === 'string' ? value.uri : '',
    design: typeof value.design === 'string' ? value.design : null,
    cases: value.cases.map(asCase).filter((c): c is CaseOutcome => !!c),
    errors,
  };
}

/** A value as the diff editor shows it: JSON, two-space indented; a string as itself. */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (value === undefined) {
    return '(no value)';
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** What a failed case shows: one message per difference, else its failure texts. */
export interface FailureMessage {
  message: string;
  expected?: string;
  actual?: string;
  range?: Span;
}

export function failureMessages(outcome: CaseOutcome): FailureMessage[] {
  if (outcome.differences.length > 0) {
    return outcome.differences.map((d) => ({
      message: d.message,
      expected: shownValue(d.expected),
      actual: shownValue(d.actual),
      range: d.range ?? outcome.range,
    }));
  }
  return outcome.failures.map((message) => ({ message, range: outcome.range }));
}

/** The errors that stop a file from running, each with where it is and, when a case's, which. */
export function errorMessages(answer: DesignTestAnswer): FailureMessage[] {
  return answer.errors.map((e) => ({ message: e.case ? `case '${e.case}': ${e.msg}` : e.msg, range: e.range }));
}
