// The sign-in page says how long a session lasts, from the gateway's session_ttl_seconds setting,
// so nobody is surprised to be signed out mid-task.
import { request } from './api.js';
import { durationText } from './format.js';

export async function showSessionLength(element) {
  try {
    const { session_ttl_seconds: seconds } = await request('GET', '/dashboard/api/session-policy');
    element.textContent = `Sessions last ${durationText(seconds)} from sign-in, or until you sign out.`;
  } catch {
    // The page's own sentence stays: still true, only less precise.
  }
}
