/**
 * The selected node's inspector: its id (renamed with every reference), then every
 * field of its kind with an input of the field's type (number with its range, a choice
 * for an enum, one line per list entry, a text box for prompts, a condition with the
 * server's completion). Each Save is one `hwf.edit.setField`, each Remove (an optional
 * field the node sets) one `hwf.edit.removeField`: a minimal text edit the editor's undo
 * undoes; the server's checks come back as the node's defects.
 */
import { useRef, useState } from 'react';
import { ExpressionInput, type Complete } from './ExpressionInput';
import { fieldText, isLong, parseFieldText } from './fieldInput';
import { FieldSpec, GraphNode, kindIcon } from '../model/graphModel';
import type { CanvasConfig, CanvasMessage, ExpressionItem } from '../model/protocol';

export function Inspector({ node, config, post, onRenamed, complete }: {
  node: GraphNode;
  config: CanvasConfig;
  post: (m: CanvasMessage) => void;
  onRenamed: (id: string) => void;
  /** The server's completion of node `id`'s `field` (the canvas's host answers). */
  complete?: (id: string, field: string, text: string, offset: number) => Promise<ExpressionItem[]>;
}) {
  const [newId, setNewId] = useState(node.id);
  const editable = config.editable;
  const fields: FieldSpec[] = node.fields ?? (node.main ? [{ name: node.main.field, type: 'string', value: node.main.value, cut: node.main.cut }] : []);
  return (
    <aside className="hwf-side" aria-label={`Node ${node.id}`}>
      <h2>
        {kindIcon(node.kind)} {node.title || node.id}
      </h2>
      <div className="hwf-side-kind">{node.kind}</div>
      {(node.defects ?? []).length > 0 && <ul className="hwf-side-defects">{node.defects!.map((d, i) => <li key={i}>{d.message}</li>)}</ul>}
      <label>
        id
        <input
          className="hwf-rename-input"
          value={newId}
          readOnly={!editable}
          onChange={(e) => setNewId(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && editable && newId && newId !== node.id) {
              post({ type: 'edit', edit: 'renameNode', id: node.id, newId });
              onRenamed(newId);
            }
          }}
        />
      </label>
      {editable && (
        <button
          className="hwf-rename"
          disabled={newId === node.id || newId === ''}
          onClick={() => {
            post({ type: 'edit', edit: 'renameNode', id: node.id, newId });
            onRenamed(newId);
          }}
        >
          Rename
        </button>
      )}
      {fields.map((field) => (
        <FieldRow
          key={`${field.name}:${JSON.stringify(field.value ?? null)}`}
          field={field}
          main={node.main?.field === field.name}
          cut={field.cut === true || (node.main?.field === field.name && node.main.cut === true)}
          editable={editable}
          save={(value) => post({ type: 'edit', edit: 'setField', id: node.id, field: field.name, value })}
          remove={() => post({ type: 'edit', edit: 'removeField', id: node.id, field: field.name })}
          complete={complete && field.name === 'expression' ? (text, offset) => complete(node.id, field.name, text, offset) : undefined}
        />
      ))}
      <button className="hwf-reveal" onClick={() => post({ type: 'reveal', id: node.id })}>
        Show in text
      </button>
      {editable && (
        <button className="hwf-delete-node" onClick={() => post({ type: 'edit', edit: 'deleteNode', id: node.id })}>
          Delete node
        </button>
      )}
    </aside>
  );
}

/**
 * One field: its typed input, what is wrong with the text and, for an optional field the
 * node sets, Remove. A change saves on Enter (Ctrl+Enter in a text box), when the field
 * loses the focus, and at once for a choice; Save shows only while there is a change.
 */
function FieldRow({ field, main, cut, editable: canEdit, save, remove, complete }: {
  field: FieldSpec;
  main: boolean;
  cut: boolean;
  editable: boolean;
  save: (value: unknown) => void;
  remove: () => void;
  complete: Complete | undefined;
}) {
  // A value cut for the canvas (graph_view.SHOWN_CHARS) is shown, never saved back.
  const editable = canEdit && !cut;
  const initial = fieldText(field);
  const [text, setText] = useState(initial);
  const parsed = parseFieldText(field, text);
  const error = text !== initial && 'error' in parsed ? parsed.error : '';
  const canSave = editable && text !== initial && !('error' in parsed);
  // Enter, then the blur of clicking elsewhere: one edit, not two of the same value
  const committed = useRef<string | null>(null);
  const commitText = (value: string) => {
    const result = parseFieldText(field, value);
    if (editable && value !== initial && value !== committed.current && 'value' in result) {
      committed.current = value;
      save(result.value);
    }
  };
  const commit = () => commitText(text);
  const common = {
    'aria-invalid': error ? true : undefined,
    readOnly: !editable,
    'data-field': field.name,
    placeholder: field.default !== undefined && field.default !== '' ? `default: ${Array.isArray(field.default) ? field.default.join(', ') : String(field.default)}` : field.required ? 'required' : '',
  };
  let input;
  if (field.name === 'expression' && field.type === 'string') {
    input = (
      <ExpressionInput
        value={text}
        onChange={setText}
        onCommit={commit}
        complete={complete}
        inputProps={{ ...common, className: `hwf-field-input${main ? ' hwf-main-input' : ''}` }}
      />
    );
  } else if (field.type === 'enum' && field.enum) {
    input = (
      <select className="hwf-field-input" value={text} disabled={!editable} data-field={field.name} onChange={(e) => { setText(e.target.value); commitText(e.target.value); }}>
        {!field.enum.includes(text) && <option value={text}>{text === '' ? '(not set)' : text}</option>}
        {field.enum.map((v) => (
          <option key={v} value={v}>{v === '' ? '(none)' : v}</option>
        ))}
      </select>
    );
  } else if (field.type === 'integer') {
    input = (
      <input
        {...common}
        className="hwf-field-input"
        type="number"
        min={field.minimum}
        max={field.maximum}
        step={1}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
        onBlur={commit}
      />
    );
  } else if (isLong(field)) {
    input = (
      <textarea
        {...common}
        className={`hwf-field-input${main ? ' hwf-main-input' : ''}`}
        rows={field.type === 'string-list' ? 3 : main ? 6 : 3}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && commit()}
        onBlur={commit}
      />
    );
  } else {
    input = (
      <input
        {...common}
        className={`hwf-field-input${main ? ' hwf-main-input' : ''}`}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
        onBlur={commit}
      />
    );
  }
  const range = field.type === 'integer' && (field.minimum !== undefined || field.maximum !== undefined) ? ` (${field.minimum ?? ''}–${field.maximum ?? ''})` : '';
  const list = field.type === 'string-list' ? ' (one per line)' : '';
  return (
    <div className="hwf-field" data-field={field.name}>
      <label>
        <span>
          {field.name}
          {field.required ? ' *' : ''}
          <span className="hwf-field-hint">{range}{list}</span>
        </span>
        {input}
      </label>
      {error && <div className="hwf-field-error" role="alert">{error}</div>}
      {cut && <div className="hwf-side-note">Too long to edit here: edit it in the text.</div>}
      {editable && (
        <div className="hwf-field-actions">
          {canSave && (
            <button className={`hwf-save-field${main ? ' hwf-save-main' : ''}`} data-field={field.name} onClick={commit}>
              Save {field.name}
            </button>
          )}
          {!field.required && field.value !== undefined && (
            <button className="hwf-remove-field" data-field={field.name} aria-label={`Remove ${field.name}`} title={`Remove ${field.name} from the node`} onClick={remove}>
              Remove
            </button>
          )}
        </div>
      )}
    </div>
  );
}
