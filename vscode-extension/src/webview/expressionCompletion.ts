/**
 * The inspector's expression completion, pure (unit tested): which of the server's items
 * the list shows for what is typed, and the text after accepting one. The items
 * themselves come from the server (`hwf.completeExpression`): none are made here.
 */
import type { ExpressionItem } from '../model/protocol';

/**
 * The items that fit what is typed between each item's start and the cursor (its label or
 * text starts with it, any case), in the server's order. An item that would change
 * nothing (its text is already there) is left out, so a finished word closes the list.
 */
export function shownItems(items: readonly ExpressionItem[], text: string, cursor: number): ExpressionItem[] {
  return items.filter((item) => {
    if (item.start > cursor || item.end < item.start || item.end > text.length) {
      return false;
    }
    const typed = text.slice(item.start, cursor).toLowerCase();
    const fits = item.label.toLowerCase().startsWith(typed) || item.text.toLowerCase().startsWith(typed);
    return fits && text.slice(item.start, item.end) !== item.text;
  });
}

/** The expression with `item` accepted, and where the cursor goes (after what it inserted). */
export function acceptItem(text: string, item: ExpressionItem): { text: string; cursor: number } {
  return { text: text.slice(0, item.start) + item.text + text.slice(item.end), cursor: item.start + item.text.length };
}

/** The option the arrows move to: down from the last wraps to the first, and up from the first to the last. */
export function moveActive(active: number, count: number, step: 1 | -1): number {
  return count === 0 ? 0 : (active + step + count) % count;
}
