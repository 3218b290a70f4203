/**
 * The inspector's inputs, pure: a field's value as the text in its input, and the text
 * back as the JSON value `hwf.edit.setField` sends, or why it is not one.
 */
import type { FieldSpec } from '../model/graphModel';

/** A multi-line text box (prompts, questions, notes, lists; a condition is one line, with completion). */
export function isLong(field: FieldSpec): boolean {
  return field.type === 'string-list' || ['prompt', 'question', 'text'].includes(field.name);
}

/** The text an input shows for the value (a list: one entry per line). */
export function fieldText(field: FieldSpec): string {
  const value = field.value;
  if (value === undefined || value === null) {
    return '';
  }
  if (field.type === 'string-list' && Array.isArray(value)) {
    return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n');
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The input's text as the field's JSON value, or `{ error }` saying what is wrong. */
export function parseFieldText(field: FieldSpec, text: string): { value: unknown } | { error: string } {
  switch (field.type) {
    case 'integer': {
      if (!/^\s*-?\d+\s*$/.test(text)) {
        return { error: `${field.name} is a whole number` };
      }
      const n = Number(text);
      if ((field.minimum !== undefined && n < field.minimum) || (field.maximum !== undefined && n > field.maximum)) {
        return { error: `${field.name} is from ${field.minimum ?? '…'} to ${field.maximum ?? '…'}` };
      }
      return { value: n };
    }
    case 'enum':
      return field.enum && !field.enum.includes(text) ? { error: `${field.name} is one of ${field.enum.join(', ')}` } : { value: text };
    case 'string-list':
    case 'id-list':
      return { value: text.split('\n').map((l) => l.trim()).filter((l) => l !== '') };
    default:
      return field.required && text.trim() === '' ? { error: `${field.name} is required` } : { value: text };
  }
}
