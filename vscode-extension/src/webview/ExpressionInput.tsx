/**
 * A condition's expression in the inspector, with the server's completion as the user
 * types (an ARIA combobox): after `out.` the node ids the condition may read, then their
 * output paths in the newest run, the operators, literals. ↑/↓ move, Enter or Tab accepts,
 * Escape closes, Ctrl+Space asks; with the list closed, Enter saves.
 */
import { useId, useRef, useState, type InputHTMLAttributes } from 'react';
import { acceptItem, moveActive, shownItems } from './expressionCompletion';
import type { ExpressionItem } from '../model/protocol';

export type Complete = (text: string, offset: number) => Promise<ExpressionItem[]>;

export function ExpressionInput({ value, onChange, onCommit, complete, inputProps }: {
  value: string;
  onChange: (text: string) => void;
  onCommit: () => void;
  complete: Complete | undefined;
  /** The field's own attributes (class, data-field, placeholder, aria-invalid, readOnly). */
  inputProps: InputHTMLAttributes<HTMLInputElement> & { 'data-field'?: string };
}) {
  const [items, setItems] = useState<ExpressionItem[]>([]);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement | null>(null);
  const asked = useRef(0);
  const listId = useId();
  const open = items.length > 0;

  const ask = (text: string, cursor: number) => {
    if (!complete || inputProps.readOnly) return;
    const request = ++asked.current;
    void complete(text, cursor).then((got) => {
      if (request !== asked.current) return; // a newer keystroke asked since
      setItems(shownItems(got, text, cursor));
      setActive(0);
    });
  };
  const close = () => {
    asked.current += 1; // an answer on its way is not shown
    setItems([]);
  };
  const accept = (item: ExpressionItem) => {
    const next = acceptItem(value, item);
    onChange(next.text);
    requestAnimationFrame(() => input.current?.setSelectionRange(next.cursor, next.cursor));
    setItems([]);
    ask(next.text, next.cursor);
  };

  return (
    <div className="hwf-combo">
      <input
        {...inputProps}
        ref={input}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open ? `${listId}-${active}` : undefined}
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => {
          onChange(e.target.value);
          ask(e.target.value, e.target.selectionStart ?? e.target.value.length);
        }}
        onBlur={close}
        onKeyDown={(e) => {
          const target = e.currentTarget;
          if (open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
            e.preventDefault();
            setActive((a) => moveActive(a, items.length, e.key === 'ArrowDown' ? 1 : -1));
          } else if (open && (e.key === 'Enter' || e.key === 'Tab') && items[active]) {
            e.preventDefault();
            accept(items[active]);
          } else if (open && e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            close();
          } else if ((e.key === ' ' && e.ctrlKey) || (!open && e.key === 'ArrowDown')) {
            e.preventDefault();
            ask(target.value, target.selectionStart ?? target.value.length);
          } else if (e.key === 'Enter') {
            onCommit();
          }
        }}
      />
      <ul className="hwf-completions" id={listId} role="listbox" aria-label="Suggestions" hidden={!open}>
        {items.map((item, i) => (
          <li
            key={`${item.label}:${item.start}`}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === active}
            className={`hwf-completion hwf-completion-${item.kind}${i === active ? ' hwf-completion-active' : ''}`}
            title={item.documentation}
            onMouseDown={(e) => e.preventDefault()} // the input keeps focus
            onClick={() => accept(item)}
          >
            <span className="hwf-completion-label">{item.label}</span>
            {item.detail && <span className="hwf-completion-detail">{item.detail}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
