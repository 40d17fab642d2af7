// The failure throttle's ceilings made small, so that a few requests reach each of them (pair 3,
// address 5, credential 6: the credential ceiling at twice the pair's, as the settings require).
export const SMALL_THROTTLE = {
  throttle_max_failures: 3,
  throttle_max_failures_per_address: 5,
  throttle_max_failures_per_credential: 6,
  throttle_window_seconds: 120,
} as const;
