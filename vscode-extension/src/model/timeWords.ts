/**
 * Times as people read them (issue 47): the run files' UTC stamps in the user's local
 * time, relative ("3 min ago") where that reads better, exact where they hover. The
 * extension host's time zone is the user's. Pure: unit tested.
 */

const pad = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

type Stamp = string | number | null | undefined;

/** An ISO stamp, or epoch seconds or milliseconds (as `ageOf` takes them). */
function dateOf(stamp: Stamp): Date | undefined {
  const ms = typeof stamp === 'number' ? (stamp < 1e12 ? stamp * 1000 : stamp) : stamp ? Date.parse(stamp) : NaN;
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** `18:56:10` today, `3 Dec 18:56:10` another day of this year, else `3 Dec 2025 18:56:10`; '' for no time. */
export function localTime(stamp: Stamp, now: number = Date.now()): string {
  const date = dateOf(stamp);
  if (!date) {
    return stamp === null || stamp === undefined ? '' : String(stamp);
  }
  const today = new Date(now);
  const clock = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  if (date.toDateString() === today.toDateString()) {
    return clock;
  }
  const day = `${date.getDate()} ${MONTHS[date.getMonth()]}`;
  return date.getFullYear() === today.getFullYear() ? `${day} ${clock}` : `${day} ${date.getFullYear()} ${clock}`;
}

/** The exact local date and time, with the zone's offset: `2026-12-04 18:56:10.281 (UTC+01:00)`. */
export function exactTime(stamp: Stamp): string {
  const date = dateOf(stamp);
  if (!date) {
    return stamp === null || stamp === undefined ? '' : String(stamp);
  }
  const offset = -date.getTimezoneOffset();
  const zone = `UTC${offset >= 0 ? '+' : '-'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')} (${zone})`;
}

/** A span of seconds as people read it: `0.25 s`, `12 s`, `3 min 5 s`, `2 h 5 min` (the server's step_words.seconds_text). */
export function secondsText(seconds: number): string {
  if (seconds < 60) {
    return seconds < 10 ? `${seconds.toFixed(2)} s` : `${Math.round(seconds)} s`;
  }
  const total = Math.round(seconds);
  const minutes = Math.floor(total / 60);
  return minutes < 60 ? `${minutes} min ${total % 60} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
