// Dates and words as people read them.
import { h } from './dom.js';

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** <time> showing the day ('date') or "3 minutes ago" ('relative'), with date and time as its title. */
export function timeElement(iso, style = 'date') {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return document.createTextNode('—');
  return h('time', { datetime: date.toISOString(), title: dateTimeFormat.format(date) }, style === 'relative' ? relativeTime(date) : dateFormat.format(date));
}

/** <time> with the date and the time of day (expiries, the end of a grace period). */
export function dateTimeElement(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return document.createTextNode('—');
  return h('time', { datetime: date.toISOString(), title: date.toISOString() }, dateTimeFormat.format(date));
}

/** The browser's offset from UTC as people write it: 'UTC', 'UTC+02:00', 'UTC-05:30'. */
export function utcOffsetText(date = new Date()) {
  const minutes = -date.getTimezoneOffset();
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  return `UTC${minutes > 0 ? '+' : '-'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function relativeTime(date) {
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const units = [
    ['year', 31_536_000],
    ['month', 2_592_000],
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return relativeFormat.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** 'service account' -> 'Service account', for the start of a sentence ('OAuth client' stays). */
export function capitalized(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** 28800 -> '8 hours', 5400 -> '90 minutes': the largest unit that states the length exactly. */
export function durationText(seconds) {
  const units = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
    ['second', 1],
  ];
  const [unit, size] = units.find(([, size]) => seconds % size === 0);
  const count = seconds / size;
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
